import IMAP
import Logging
import MailStore
import PosternTestSupport
import Synchronization
import Testing

@testable import IMAPServer

/// What one `SEARCH`, `SORT` or `THREAD` may cost (issue 81, item 2): a needle past ``IMAPLimits/maxSearchStringBytes``
/// refused before any mail is read, the bytes one command reads bounded, one account's allowance shared by its
/// sessions and refilled over time, and a search that stops when its connection closes. Run through the connection
/// driver on SQLite: the meter counts the same whichever backend answers the keys it sends to the store.
@Suite("IMAP server: what a search may cost", .timeLimit(.minutes(3)))
struct IMAPSearchLimitsTests {
    static let address = MailDoorHolder.address

    /// A clock the test moves.
    final class TestClock: Sendable {
        private let time = Mutex(Duration.zero)
        func advance(_ by: Duration) { time.withLock { $0 += by } }
        var now: @Sendable () -> Duration { { [self] in time.withLock { $0 } } }
    }

    /// `count` messages of about `bodyBytes` each, the body `filler` repeated with the message's number last.
    static func deliver(_ store: MailStore, count: Int, bodyBytes: Int) async throws {
        for number in 1...count {
            let body = String(repeating: "filler text ", count: bodyBytes / 12) + "number\(number)"
            let raw = Array("From: a@example.com\r\nSubject: message \(number)\r\n\r\n\(body)\r\n".utf8)
            _ = try await store.deliver(
                NewMailMessage(envelopeFrom: "a@example.com", subject: "message \(number)", textBody: body, raw: raw),
                to: [.init(address: address, quota: 100_000_000)], folder: .inbox, now: 1_700_000_000 + Int64(number))
        }
    }

    /// A signed-in session on `store` with INBOX selected, searching under `budget`.
    static func session(_ store: MailStore, budget: IMAPSearchBudget) async throws -> IMAPConnectionDriver {
        let driver = IMAPConnectionDriver(
            store: store, snapshots: IMAPSnapshotCache(capacity: 10_000), envelopes: IMAPEnvelopeCache(capacity: 100),
            signIn: OneHolderSignIn(), client: "127.0.0.1", now: { 1_800_000_000 },
            logger: Logger(label: "imap-search-limits-tests"), searchBudget: budget)
        _ = await driver.login(username: address, password: MailDoorHolder.password)
        _ = try await IMAPRecentTests.run(driver, .select(IMAPName.inbox))
        return driver
    }

    enum IMAPName { static let inbox = IMAPMailboxName("INBOX") }

    static func run(_ driver: IMAPConnectionDriver, _ kind: IMAPCommandKind) async -> IMAPCommandResult {
        await driver.run(IMAPCommand(tag: "t", kind: kind))
    }

    static func isLimit(_ result: IMAPCommandResult) -> Bool {
        result.status.kind == .no && result.status.code == .limit
    }

    static func search(_ key: IMAPSearchKey) -> IMAPCommandKind { .search(IMAPSearchCommand(key: key), uid: false) }

    /// The numbers of a plain SEARCH's answer.
    static func numbers(_ result: IMAPCommandResult) -> [UInt32]? {
        for response in result.responses { if case .search(let numbers) = response { return numbers } }
        return nil
    }

    static func limits(perCommand: Int = 256 << 20, perAccount: Int = 512 << 20, refill: Int = 0) -> IMAPLimits {
        var limits = IMAPLimits()
        limits.maxSearchBytesPerCommand = perCommand
        limits.searchBytesPerAccount = perAccount
        limits.searchBytesPerAccountPerSecond = refill
        return limits
    }

    @Test("a 64 KiB needle over a full mailbox: NO [LIMIT] before a byte of mail is read; 1,024 bytes are searched")
    func longNeedle() async throws {
        let database = try StorageBackend.sqlite.makeDatabase()
        let store = MailStore(database: database.database)
        try await Self.deliver(store, count: 40, bodyBytes: 24_000)  // about 1 MB, the holder's quota
        let budget = IMAPSearchBudget(limits: IMAPLimits())
        let driver = try await Self.session(store, budget: budget)
        let needle = String(repeating: "a", count: 65_535) + "b"
        for kind: IMAPCommandKind in [
            Self.search(.body(needle)),
            Self.search(.or(.text("x"), .not(.header(field: "SUBJECT", contains: needle)))),
            .sort(
                IMAPSortCommand(
                    criteria: [.init(.subject)], charset: "UTF-8", key: .address(field: "FROM", contains: needle)),
                uid: true),
            .thread(IMAPThreadCommand(algorithm: .orderedSubject, charset: "UTF-8", key: .text(needle)), uid: false),
        ] {
            let result = await Self.run(driver, kind)
            #expect(Self.isLimit(result), "\(result.status)")
        }
        #expect(budget.left(account: Self.address) == budget.capacity, "nothing was read")
        let atLimit = await Self.run(driver, Self.search(.body(String(repeating: "z", count: 1024))))
        #expect(Self.numbers(atLimit) == [])
        #expect(await Self.run(driver, Self.search(.body("number40"))).status.kind == .ok)
    }

    @Test("a command reads at most maxSearchBytesPerCommand: SEARCH, SORT and THREAD past it answer NO [LIMIT]")
    func perCommand() async throws {
        let database = try StorageBackend.sqlite.makeDatabase()
        let store = MailStore(database: database.database)
        try await Self.deliver(store, count: 10, bodyBytes: 10_000)
        let budget = IMAPSearchBudget(limits: Self.limits(perCommand: 150_000))  // one key over the mailbox, not two
        let driver = try await Self.session(store, budget: budget)
        let one = await Self.run(driver, Self.search(.body("number7")))
        #expect(Self.numbers(one) == [7])
        let two = await Self.run(driver, Self.search(.and([.body("number7"), .text("filler")])))
        #expect(Self.isLimit(two), "\(two.status)")
        let bySubject = IMAPSortCommand(criteria: [.init(.subject)], charset: "UTF-8", key: .body("number"))
        let sorted = await Self.run(driver, .sort(bySubject, uid: false))
        #expect(Self.isLimit(sorted), "SORT's search and its keys read the mailbox twice: \(sorted.status)")
        let thread = IMAPThreadCommand(algorithm: .orderedSubject, charset: "UTF-8", key: .text("filler"))
        let threaded = await Self.run(driver, .thread(thread, uid: false))
        #expect(Self.isLimit(threaded), "\(threaded.status)")
        let size = IMAPSortCommand(criteria: [.init(.size)], charset: "UTF-8", key: .all)
        let bySize = await Self.run(driver, .sort(size, uid: false))
        #expect(bySize.status.kind == .ok, "ARRIVAL and SIZE read no message")
    }

    @Test("one account's sessions share one allowance, refilled over time; another account has its own")
    func perAccount() async throws {
        let database = try StorageBackend.sqlite.makeDatabase()
        let store = MailStore(database: database.database)
        try await Self.deliver(store, count: 10, bodyBytes: 10_000)
        let clock = TestClock()
        let budget = IMAPSearchBudget(limits: Self.limits(perAccount: 150_000, refill: 10_000), clock: clock.now)
        let first = try await Self.session(store, budget: budget)
        let second = try await Self.session(store, budget: budget)
        #expect(Self.numbers(await Self.run(first, Self.search(.body("number3")))) == [3])
        let refused = await Self.run(second, Self.search(.body("number3")))
        #expect(Self.isLimit(refused), "the second session has what the first left: \(refused.status)")
        #expect(budget.take(100_000, account: "other@mail.localhost"), "another account is not charged")
        clock.advance(.seconds(15))
        #expect(Self.numbers(await Self.run(second, Self.search(.body("number3")))) == [3], "refilled")
    }

    @Test("the allowance table forgets refilled accounts first, then the fullest, and stays bounded")
    func boundedTable() {
        let clock = TestClock()
        var limits = Self.limits(perAccount: 1000, refill: 100)
        limits.searchAccountsTracked = 3
        let budget = IMAPSearchBudget(limits: limits, clock: clock.now)
        #expect(budget.take(900, account: "a"))
        #expect(budget.take(500, account: "b"))
        #expect(budget.take(100, account: "c"))
        #expect(!budget.take(200, account: "a"), "a has 100 left")
        #expect(budget.take(100, account: "d"))
        #expect(budget.accountCount == 3)
        #expect(budget.left(account: "a") == 100, "c, the fullest, was forgotten; a was kept")
        clock.advance(.seconds(10))
        #expect(budget.left(account: "a") == 1000, "refilled to the bucket's size, no further")
        for name in ["e", "f", "g", "h"] { #expect(budget.take(1, account: name)) }
        #expect(budget.accountCount == 3)
    }

    /// A view of `messages` messages of 100 bytes, `m1`, `m2`, ... (uids 1, 2, ...).
    static func view(messages: Int) -> IMAPMailboxView {
        let entries = (1...messages).map {
            MailUIDEntry(uid: UInt32($0), id: "m\($0)", keywords: [], size: 100, receivedAt: 0)
        }
        return IMAPMailboxView(
            folder: .inbox, readOnly: false, mailbox: MailUIDMailbox(uidValidity: 1, uidNext: UInt32(messages + 1)),
            entries: entries)
    }

    /// A meter without limits that stops when `stopped` says so.
    static func meter(_ stopped: @escaping @Sendable () -> Bool) -> IMAPSearchMeter {
        IMAPSearchMeter(
            budget: IMAPSearchBudget(limits: IMAPLimits()), account: address, commandLimit: .max, stopped: stopped)
    }

    @Test("a search stops at the next message once its meter is stopped: the messages after it are never read")
    func stopsBetweenMessages() async throws {
        let closed = Atomic<Bool>(false)
        let loads = Atomic<Int>(0)
        let meter = Self.meter { closed.load(ordering: .relaxed) }
        let search = IMAPSearch(
            view: Self.view(messages: 50), saved: [], meter: meter, stored: { _ in [] },
            message: { _ in
                if loads.add(1, ordering: .relaxed).newValue == 5 { closed.store(true, ordering: .relaxed) }
                return IMAPMessageRenderer(raw: Array("Subject: s\r\n\r\nbody\r\n".utf8))
            })
        await #expect(throws: IMAPSearchStop.cancelled) {
            try await search.run(.header(field: "X-EXTRA", contains: "absent"))
        }
        #expect(loads.load(ordering: .relaxed) == 5)
        #expect(meter.read.messages == 5)
    }

    @Test("a key the store answers is asked a run of messages at a time, each run charged first: a stop ends it there")
    func stopsBetweenStoredRuns() async throws {
        let closed = Atomic<Bool>(false)
        let queries = Atomic<Int>(0)
        let meter = Self.meter { closed.load(ordering: .relaxed) }
        let search = IMAPSearch(
            view: Self.view(messages: 250), saved: [], meter: meter,
            stored: { _ in
                queries.add(1, ordering: .relaxed)
                closed.store(true, ordering: .relaxed)
                return []
            },
            message: { _ in nil })
        await #expect(throws: IMAPSearchStop.cancelled) {
            try await search.run(.and([.body("absent"), .header(field: "SUBJECT", contains: "absent")]))
        }
        #expect(queries.load(ordering: .relaxed) == 1, "the two keys are one query of the first run")
        #expect(meter.read.messages == IMAPSearch.storedRun)
        #expect(meter.read.bytes == IMAPSearch.storedRun * 100 * 2, "each message charged once per text key")
    }

    @Test("a search under way when the connection closes stops before the mailbox is read to its end")
    func stopsWhenTheConnectionCloses() async throws {
        let database = try StorageBackend.sqlite.makeDatabase()
        let store = MailStore(database: database.database)
        // Many short messages (24 runs of the store's reads for the two keys), so that the close, made as soon as the
        // first run is charged, lands while most runs are still to come even when this task waits for a thread.
        let (count, bodyBytes) = (1_200, 700)
        try await Self.deliver(store, count: count, bodyBytes: bodyBytes)
        let budget = IMAPSearchBudget(limits: IMAPLimits())
        let driver = try await Self.session(store, budget: budget)
        let whole = budget.capacity
        let finished = Atomic<Bool>(false)
        let running = Task {
            defer { finished.store(true, ordering: .relaxed) }
            return await Self.run(driver, Self.search(.or(.body("absent"), .text("absent"))))
        }
        // Until the search has begun reading (or, were nothing counted, has ended).
        while budget.left(account: Self.address) == whole && !finished.load(ordering: .relaxed) { await Task.yield() }
        driver.connectionClosed()
        let result = await running.value
        #expect(Self.isLimit(result), "\(result.status)")
        let mailbox = count * bodyBytes
        #expect(whole - budget.left(account: Self.address) < 2 * mailbox, "the two keys did not read it all")
        let after = await Self.run(driver, Self.search(.body("number1")))
        #expect(Self.isLimit(after) && whole - budget.left(account: Self.address) < 2 * mailbox, "nor does the next")
    }
}
