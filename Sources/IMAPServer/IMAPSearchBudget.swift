import IMAP
import Synchronization

/// How many bytes of messages each account's searches may still read, shared by every session of one listener: a
/// token bucket per account of ``IMAPLimits/searchBytesPerAccount`` bytes, refilled at
/// ``IMAPLimits/searchBytesPerAccountPerSecond``, so that many sessions of one account, or commands one after another,
/// cannot multiply what one `SEARCH`, `SORT` or `THREAD` may cost (issue 81, item 2). Each message a command reads is
/// taken from its account's bucket at its stored size before it is read (``IMAPSearchMeter``).
///
/// Bounded by ``IMAPLimits/searchAccountsTracked`` accounts: an account whose bucket has refilled is the same as one
/// never seen, and is forgotten first; past that, the one with the most left.
final class IMAPSearchBudget: Sendable {
    private struct Bucket {
        /// Bytes left at `at`.
        var level: Double
        var at: Duration
    }

    /// The limits it was made from: the bucket's, and the search limits each command meets.
    let limits: IMAPLimits
    let capacity: Int
    let refillPerSecond: Int
    let maxAccounts: Int
    /// A monotonic clock: the time since any fixed origin.
    private let clock: @Sendable () -> Duration
    private let buckets = Mutex<[String: Bucket]>([:])

    /// - Parameters:
    ///   - limits: the bucket's size and refill and how many accounts are kept.
    ///   - clock: a monotonic clock (injected for tests); the continuous clock since this budget was made by default.
    init(limits: IMAPLimits, clock: (@Sendable () -> Duration)? = nil) {
        self.limits = limits
        capacity = limits.searchBytesPerAccount
        refillPerSecond = limits.searchBytesPerAccountPerSecond
        maxAccounts = max(1, limits.searchAccountsTracked)
        let origin = ContinuousClock.now
        self.clock = clock ?? { ContinuousClock.now - origin }
    }

    /// Takes `bytes` from `account`'s bucket; false (and nothing taken) when fewer are left.
    func take(_ bytes: Int, account: String) -> Bool {
        let now = clock()
        return buckets.withLock { buckets in
            var bucket = buckets[account].map { refilled($0, now: now) } ?? Bucket(level: Double(capacity), at: now)
            guard bucket.level >= Double(bytes) else { return false }
            bucket.level -= Double(bytes)
            if buckets[account] == nil && buckets.count >= maxAccounts { makeRoom(&buckets, now: now) }
            buckets[account] = bucket
            return true
        }
    }

    /// The bytes `account` may read now.
    func left(account: String) -> Int {
        let now = clock()
        return buckets.withLock { buckets in
            Int(buckets[account].map { refilled($0, now: now) }?.level ?? Double(capacity))
        }
    }

    /// How many accounts are kept (for tests).
    var accountCount: Int { buckets.withLock { $0.count } }

    private func refilled(_ bucket: Bucket, now: Duration) -> Bucket {
        let elapsed = now - bucket.at
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Bucket(level: min(Double(capacity), bucket.level + max(0, seconds) * Double(refillPerSecond)), at: now)
    }

    /// Forgets every full bucket; when none is full, the fullest.
    private func makeRoom(_ buckets: inout [String: Bucket], now: Duration) {
        let capacity = Double(capacity)
        let full = buckets.filter { refilled($0.value, now: now).level >= capacity }.map(\.key)
        for account in full { buckets[account] = nil }
        guard full.isEmpty, let fullest = buckets.max(by: { $0.value.level < $1.value.level })?.key else { return }
        buckets[fullest] = nil
    }
}

/// Why a `SEARCH`, `SORT` or `THREAD` stopped before it finished.
enum IMAPSearchStop: Error, Equatable {
    /// Past ``IMAPLimits/maxSearchBytesPerCommand``, or the account's ``IMAPSearchBudget`` is spent.
    case tooExpensive
    /// The connection closed (or the command's task was cancelled): nobody is waiting for the answer.
    case cancelled

    /// The command's answer: `NO [LIMIT]` (RFC 5530) either way (a closed connection reads none).
    var status: IMAPStatusResponse {
        switch self {
        case .tooExpensive: IMAPStatusResponse(.no, code: .limit, "Search too expensive, narrow it")
        case .cancelled: IMAPStatusResponse(.no, code: .limit, "Search cancelled")
        }
    }
}

/// What one `SEARCH`, `SORT` or `THREAD` has read, charged before each message it reads: the message's stored size
/// against the command's ``IMAPLimits/maxSearchBytesPerCommand`` and the account's ``IMAPSearchBudget``, and whether
/// it should go on at all (the connection still open). Used by one command's task at a time.
final class IMAPSearchMeter: Sendable {
    private let budget: IMAPSearchBudget
    private let account: String
    private let commandLimit: Int
    private let stopped: @Sendable () -> Bool
    private let counts = Mutex<(bytes: Int, messages: Int)>((0, 0))

    /// - Parameters:
    ///   - stopped: whether nobody waits for the answer any more (checked before each message, with the task's own
    ///     cancellation).
    init(budget: IMAPSearchBudget, account: String, commandLimit: Int, stopped: @escaping @Sendable () -> Bool) {
        self.budget = budget
        self.account = account
        self.commandLimit = commandLimit
        self.stopped = stopped
    }

    /// Counts a message of `size` bytes about to be read.
    /// - Throws: ``IMAPSearchStop/cancelled`` when the connection closed, ``IMAPSearchStop/tooExpensive`` when the
    ///   command or the account cannot read `size` more bytes; nothing is counted then.
    func charge(_ size: Int) throws(IMAPSearchStop) {
        if stopped() || Task.isCancelled { throw .cancelled }
        let size = max(size, 0)
        try counts.withLock { (counts) throws(IMAPSearchStop) in
            guard counts.bytes + size <= commandLimit, budget.take(size, account: account) else { throw .tooExpensive }
            counts.bytes += size
            counts.messages += 1
        }
    }

    /// The bytes and the messages read so far.
    var read: (bytes: Int, messages: Int) { counts.withLock { $0 } }
}
