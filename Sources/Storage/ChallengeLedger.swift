import Dispatch
import Logging

/// The single-use ledger of proof-of-work challenge ids shared by both PoW surfaces (`challenges` table).
///
/// Consuming is one INSERT: the primary key decides every race, between tasks, between processes on
/// the same file, and across restarts (a consumed id stays recorded until it is purged after expiry).
public struct ChallengeLedger: Sendable {
    /// The database holding the `challenges` table (migration `0001_core.sql`).
    public let database: any SQLDatabase

    /// Makes a ledger over `database`; the `0001_core.sql` migration must have been applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Records `id` as used.
    /// - Parameters:
    ///   - id: the challenge id (`jti` or mailbox challenge id).
    ///   - surface: which surface consumed it (`agent`, `mailbox`), for operators.
    ///   - expiresAt: Unix seconds after which the challenge can no longer be accepted anyway, leeway
    ///     included; the row is kept at least until then.
    /// - Returns: true the first time `id` is consumed, false when it was already used.
    /// - Throws: `StorageError` for anything but the duplicate (a full disk is `.full`, `isUnavailable`).
    public func consume(id: String, surface: String, expiresAt: Int64) async throws -> Bool {
        try await database.write { connection in
            try ChallengeLedger.consume(connection, id: id, surface: surface, expiresAt: expiresAt)
        }
    }

    /// Deletes challenges whose `expires_at` is before `now`.
    /// - Returns: how many rows were removed.
    @discardableResult
    public func purgeExpired(now: Int64) async throws -> Int {
        try await database.write { connection in try ChallengeLedger.purge(connection, now: now) }
    }

    /// How long past its expiry the periodic purge keeps a consumed challenge, in seconds.
    ///
    /// Challenges expire by the wall clock, which can be stepped back (NTP, a VM resumed, an operator).
    /// Were a row purged as soon as it expired, a clock that ran ahead and was then set back would make
    /// the challenge acceptable again with no record of its use: one proof of work, two signups. Keeping
    /// rows an hour longer makes that impossible for steps back of up to an hour; the rows are small.
    public static let clockStepMargin: Int64 = 3600

    /// Purges challenges that expired more than `margin` seconds ago, every `interval` (a timer on a queue
    /// of its own that waits for a writing connection), until the schedule is cancelled.
    /// - Parameters:
    ///   - interval: time between purges (positive).
    ///   - margin: seconds a row outlives its expiry (see ``clockStepMargin``).
    ///   - now: the clock, in Unix seconds.
    /// - Returns: the running schedule; keep it, because dropping it cancels the purge.
    public func startPurging(
        every interval: Duration, margin: Int64 = ChallengeLedger.clockStepMargin,
        now: @escaping @Sendable () -> Int64
    ) -> PurgeSchedule {
        PurgeSchedule.start(every: interval, on: database, purging: "expired challenges") {
            try ChallengeLedger.purge($0, now: now() - margin)
        }
    }

    static func consume(_ connection: any SQLConnection, id: String, surface: String, expiresAt: Int64) throws -> Bool {
        do {
            try connection.run(
                "INSERT INTO challenges(id, surface, expires_at) VALUES (?, ?, ?)",
                [.text(id), .text(surface), .integer(expiresAt)])
            return true
        } catch let error as StorageError where error.code == .constraintUnique {
            return false
        }
    }

    static func purge(_ connection: any SQLConnection, now: Int64) throws -> Int {
        try connection.run("DELETE FROM challenges WHERE expires_at < ?", [.integer(now)])
    }
}

/// A running periodic purge; `cancel()` (or dropping the last reference) stops it.
///
/// `@unchecked Sendable` is safe because the only state is the timer source, whose `cancel()` is
/// thread-safe, and whose handler is set once before `resume()` and never changed, and its serial queue.
public final class PurgeSchedule: @unchecked Sendable {
    private let timer: any DispatchSourceTimer
    private let queue: DispatchQueue

    init(timer: any DispatchSourceTimer, queue: DispatchQueue) {
        self.timer = timer
        self.queue = queue
    }

    /// Runs `purge` on a writing connection of `database` every `interval` (a timer on a queue of its own), until
    /// the schedule is cancelled; `purge` returns the rows it removed, which are logged at trace level.
    /// - Parameters:
    ///   - interval: time between purges (positive).
    ///   - what: what is purged, for the log ("expired challenges").
    public static func start(
        every interval: Duration, on database: any SQLDatabase, purging what: String,
        _ purge: @escaping @Sendable (any SQLConnection) throws -> Int
    ) -> PurgeSchedule {
        let components = interval.components
        let nanoseconds = max(1, components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
        let dispatchInterval = DispatchTimeInterval.nanoseconds(Int(clamping: nanoseconds))
        let logger = database.logger
        let queue = DispatchQueue(label: "postern.storage.purge")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: .now() + dispatchInterval, repeating: dispatchInterval,
            leeway: .nanoseconds(Int(clamping: nanoseconds / 10)))
        timer.setEventHandler {
            do {
                let removed = try database.writeSync(purge)
                logger.trace("\(what) purged", metadata: ["removed": "\(removed)"])
            } catch {
                logger.warning("purging \(what) failed", metadata: ["error": "\(error)"])
            }
        }
        timer.resume()
        return PurgeSchedule(timer: timer, queue: queue)
    }

    deinit {
        timer.cancel()
    }

    /// Stops the purge: no later one starts, and one already running has finished when this returns (the timer's
    /// serial queue is drained), so no purge of this schedule runs after it.
    public func cancel() {
        timer.cancel()
        queue.sync {}
    }

    /// True once `cancel()` was called.
    public var isCancelled: Bool { timer.isCancelled }
}
