import IMAP
import Logging
import MailStore
import PosternTestSupport
import Testing

@testable import IMAPServer

/// IMAP4rev1's `\Recent` over the one store (RFC 3501 §2.3.2, migration 0064): a message is recent in exactly one
/// session, the first to SELECT its mailbox after it arrived (or, already selected, to be told of it by NOOP or IDLE);
/// EXAMINE and STATUS count it without taking it. Run through the connection driver, the store on each backend.
@Suite("IMAP server: \\Recent in exactly one session", .timeLimit(.minutes(3)))
struct IMAPRecentTests {
    static let inbox = IMAPMailboxName("INBOX")

    /// A signed-in session on `store`.
    static func session(_ store: MailStore, snapshots: IMAPSnapshotCache = IMAPSnapshotCache(capacity: 1000)) async
        -> IMAPConnectionDriver
    {
        let driver = IMAPConnectionDriver(
            store: store, snapshots: snapshots, envelopes: IMAPEnvelopeCache(capacity: 1000), signIn: OneHolderSignIn(),
            client: "127.0.0.1",
            now: { 1_800_000_000 }, logger: Logger(label: "imap-recent-tests"))
        _ = await driver.login(username: MailDoorHolder.address, password: MailDoorHolder.password)
        return driver
    }

    static func run(_ driver: IMAPConnectionDriver, _ kind: IMAPCommandKind) async throws -> [IMAPUntaggedResponse] {
        let result = await driver.run(IMAPCommand(tag: "t", kind: kind))
        try #require(result.status.kind == .ok, "\(kind): \(result.status)")
        return result.responses
    }

    /// The `RECENT` count of `responses`; nil when there is none.
    static func recent(_ responses: [IMAPUntaggedResponse]) -> UInt32? {
        for response in responses { if case .recent(let count) = response { return count } }
        return nil
    }

    static func search(_ driver: IMAPConnectionDriver, _ key: IMAPSearchKey) async throws -> [UInt32] {
        for response in try await run(driver, .search(IMAPSearchCommand(key: key), uid: false)) {
            if case .search(let numbers) = response { return numbers }
        }
        Issue.record("no SEARCH response")
        return []
    }

    static func statusRecent(_ driver: IMAPConnectionDriver) async throws -> UInt64? {
        for response in try await run(driver, .status(inbox, [.recent])) {
            if case .mailboxStatus(_, let values) = response { return values.first?.value }
        }
        return nil
    }

    /// The sequence numbers whose `FETCH (FLAGS)` shows `\Recent`.
    static func flaggedRecent(_ driver: IMAPConnectionDriver, count: UInt32) async throws -> [UInt32] {
        var numbers: [UInt32] = []
        for response in try await run(driver, .fetch(.ranges(of: Array(1...count)), [.flags], uid: false)) {
            guard case .fetch(let number, let items) = response else { continue }
            for case .flags(let flags) in items where flags.contains(.recent) { numbers.append(number) }
        }
        return numbers
    }

    @Test("SELECT takes the new messages once; EXAMINE and STATUS count them without taking; NOOP takes arrivals", arguments: StorageBackend.allCases)
    func oneSession(_ backend: StorageBackend) async throws {
        let database = try backend.makeDatabase()
        let store = MailStore(database: database.database)
        _ = try await MailDoorHolder.deliver(store, ["one", "two", "three"])
        let first = await Self.session(store)
        #expect(try await Self.statusRecent(first) == 3)

        let examined = try await Self.run(first, .examine(Self.inbox))
        #expect(Self.recent(examined) == 3)
        #expect(try await Self.search(first, .recent) == [1, 2, 3])
        _ = try await Self.run(first, .close)
        #expect(try await Self.statusRecent(first) == 3, "EXAMINE took nothing")

        #expect(Self.recent(try await Self.run(first, .select(Self.inbox))) == 3)
        #expect(try await Self.flaggedRecent(first, count: 3) == [1, 2, 3])
        #expect(try await Self.search(first, .recent) == [1, 2, 3])
        #expect(try await Self.search(first, .new) == [1, 2, 3])
        #expect(try await Self.search(first, .old) == [])
        #expect(try await Self.statusRecent(first) == 0, "taken by the SELECT")

        let second = await Self.session(store)
        #expect(Self.recent(try await Self.run(second, .select(Self.inbox))) == 0)
        #expect(try await Self.flaggedRecent(second, count: 3) == [])
        #expect(try await Self.search(second, .recent) == [])
        #expect(try await Self.search(second, .old) == [1, 2, 3])

        // An arrival while both are selected: the first session told of it takes it.
        _ = try await MailDoorHolder.deliver(store, ["four"])
        let told = try await Self.run(second, .noop)
        #expect(told.contains(.exists(4)) && Self.recent(told) == 1, "\(told)")
        #expect(Self.recent(try await Self.run(first, .noop)) == 3, "the first keeps its three, not the fourth")
        #expect(try await Self.search(first, .recent) == [1, 2, 3])
        #expect(try await Self.search(second, .recent) == [4])
        #expect(try await Self.flaggedRecent(second, count: 4) == [4])
    }

    @Test("Sessions on two instances selecting at once: every message is recent in exactly one of them", arguments: StorageBackend.allCases)
    func racing(_ backend: StorageBackend) async throws {
        let database = try backend.makeDatabase()
        let stores = [MailStore(database: database.database), MailStore(database: try database.another())]
        var delivered = 0
        for round in 0..<4 {
            _ = try await MailDoorHolder.deliver(stores[0], (0..<3).map { "r\(round)-\($0)" })
            delivered += 3
            // Four sessions, two per instance, each with its own cache as separate listeners have.
            var sessions: [IMAPConnectionDriver] = []
            for index in 0..<4 { sessions.append(await Self.session(stores[index % 2])) }
            let recents = try await withThrowingTaskGroup(of: [UInt32].self) { group in
                for session in sessions {
                    group.addTask {
                        _ = try await Self.run(session, .select(Self.inbox))
                        return try await Self.search(session, .recent)
                    }
                }
                return try await group.reduce(into: [[UInt32]]()) { $0.append($1) }
            }
            let all = recents.flatMap { $0 }
            #expect(all.sorted() == Array(UInt32(delivered - 2)...UInt32(delivered)), "round \(round): \(recents)")
        }
    }
}
