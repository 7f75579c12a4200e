import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// Retention (issue 71 item 5): at most N messages an address (issue 81 item 8) and none older than an age, the oldest
/// pruned first, through the store's delete so every address's change log records it.
@Suite("Mail retention: count and age limits, oldest first, through the store's delete", .serialized)
struct MailRetentionTests {
    /// Delivers `count` messages spread over `addresses`, the i-th received at `firstSecond + i`, 100 to a transaction;
    /// their ids in arrival order.
    ///
    /// 100 to a transaction, not all in one: a database call is bounded by the commit timeout (10 s), and 1,200
    /// deliveries in one call on PostgreSQL outlasted it at load 18 (`inDoubt`, the setup's failure, not the prune's).
    static func fill(
        _ store: MailStore, count: Int, addresses: [String], firstSecond: Int64 = 1
    ) async throws -> [String] {
        var ids: [String] = []
        for batch in stride(from: 0, to: count, by: 100) {
            ids += try await store.database.write { connection in
                try connection.transaction {
                    try (batch..<min(batch + 100, count)).map { index in
                        try store.deliver(
                            MailStoreTests.message("m\(index)", bytes: 10),
                            to: .init(address: addresses[index % addresses.count], quota: 1 << 30), folder: .inbox,
                            now: firstSecond + Int64(index), on: connection)
                    }
                }
            }
        }
        return ids
    }

    static func ids(_ db: MailDatabase, _ condition: String = "1 = 1") async throws -> [String] {
        try await db.database.read { connection in
            try connection.query("SELECT id FROM mail_messages WHERE \(condition) ORDER BY received_seq")
                .compactMap { $0.text("id") }
        }
    }

    @Test(
        "1,200 messages over 12 addresses, 90 kept each: each address's newest 90 stay, each deletion in its change log",
        arguments: StorageBackend.allCases)
    func countLimit(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let addresses = (0..<12).map { "box\($0)@mail.localhost" }
        let sandbox = "sandbox-1@sandbox.mail.localhost"
        let captured = try await Self.fill(store, count: 30, addresses: [sandbox], firstSecond: 0)
        let ids = try await Self.fill(store, count: 1200, addresses: addresses, firstSecond: 100)
        let before = try #require(try await store.changes(address: addresses[0], since: 0)?.state)

        // Each address holds 100: its oldest 10 go, the first 120 delivered, address by address, oldest first.
        let pruned = try await store.prune(MailRetention(maxMessages: 90), now: 10_000)
        #expect(Set(pruned.map(\.id)) == Set(ids.prefix(120)) && pruned.count == 120)
        let second = stride(from: 1, to: 120, by: 12).map { ids[$0] }
        #expect(pruned.filter { $0.address == addresses[1] }.map(\.id) == second)
        #expect(pruned.allSatisfy { $0.reason == .count })
        #expect(try await Self.ids(db, "address <> '\(sandbox)'") == Array(ids.suffix(1080)))
        // The sandbox's 30, older than all of them, are its own address's and under the limit: kept.
        #expect(try await Self.ids(db, "address = '\(sandbox)'") == captured)
        let log = try #require(try await store.changes(address: addresses[0], since: before))
        #expect(log.log.filter { $0.kind == .destroyed }.count == pruned.filter { $0.address == addresses[0] }.count)
        #expect(log.state > before)
        // Told as pruned (Mailpit's `prune` event), unlike a message deleted through a door.
        #expect(pruned.allSatisfy { store.changes.pruned.contains($0.id) })
        #expect(!store.changes.pruned.contains(ids[120]))

        #expect(try await store.prune(MailRetention(maxMessages: 90), now: 10_000).isEmpty)
        let tighter = try await store.prune(MailRetention(maxMessages: 10), now: 10_000)
        #expect(try await Self.ids(db, "address = '\(sandbox)'") == Array(captured.suffix(10)))
        #expect(tighter.filter { $0.address == sandbox }.count == 20)
        #expect(try await Self.ids(db, "address <> '\(sandbox)'") == Array(ids.suffix(120)))
    }

    /// Issue 81 item 8: an outsider's 25 messages to its own mail.tm account pruned another account's only message.
    @Test(
        "one address's flood never prunes another's mail: the flooding address keeps its newest N, the other its one",
        arguments: StorageBackend.allCases)
    func floodPrunesOnlyItsOwnAddress(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let quiet = try await Self.fill(store, count: 1, addresses: ["b@mail.localhost"], firstSecond: 1)
        let flood = try await Self.fill(store, count: 25, addresses: ["a@mail.localhost"], firstSecond: 10)

        let pruned = try await store.prune(MailRetention(maxMessages: 20), now: 1_000)
        #expect(pruned.map(\.id) == Array(flood.prefix(5)))
        #expect(pruned.allSatisfy { $0.address == "a@mail.localhost" && $0.reason == .count })
        #expect(try await Self.ids(db, "address = 'b@mail.localhost'") == quiet)
        #expect(try await Self.ids(db, "address = 'a@mail.localhost'") == Array(flood.suffix(20)))
        #expect(try await store.prune(MailRetention(maxMessages: 20), now: 1_000).isEmpty)
    }

    @Test("an age limit prunes by arrival time against the caller's clock; unlimited prunes nothing", arguments: StorageBackend.allCases)
    func ageLimit(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let ids = try await Self.fill(store, count: 5, addresses: ["a@mail.localhost", "b@mail.localhost"], firstSecond: 100)
        #expect(try await store.prune(MailRetention(), now: 1_000_000).isEmpty)
        // Arrived at 100 ... 104; at 1,102 a limit of 1,000 s keeps those that arrived at 102 or later.
        let pruned = try await store.prune(MailRetention(maxAge: 1000), now: 1102)
        #expect(pruned == [
            MailPruned(address: "a@mail.localhost", id: ids[0], reason: .age),
            MailPruned(address: "b@mail.localhost", id: ids[1], reason: .age),
        ])
        #expect(try await Self.ids(db) == Array(ids.suffix(3)))
        // Both limits: the age first, then each address's count of what is left (b has ids[3] and a newer one).
        let newer = try await Self.fill(store, count: 1, addresses: ["b@mail.localhost"], firstSecond: 105)
        let both = try await store.prune(MailRetention(maxMessages: 1, maxAge: 1000), now: 1103)
        #expect(both == [
            MailPruned(address: "a@mail.localhost", id: ids[2], reason: .age),
            MailPruned(address: "b@mail.localhost", id: ids[3], reason: .count),
        ])
        #expect(try await Self.ids(db) == [ids[4]] + newer)
    }

    @Test("a domain's age limit: only the named domains' messages past the age go; the state of each address moves",
        arguments: StorageBackend.allCases)
    func domains(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        for (id, address, now) in [
            ("old", "a@cx.test", Int64(100)), ("new", "a@cx.test", 200), ("other-domain", "a@mail.test", 100),
            ("look-alike", "a@xcx.test", 100), ("old-too", "b@sub.cx2.test", 100),
        ] {
            _ = try await store.deliver(
                MailStoreTests.message(id), to: [.init(address: address, quota: 1_000_000)], folder: .inbox, now: now)
        }
        let before = try await store.state(address: "a@cx.test")
        let pruned = try await store.prune(olderThan: 50, onDomains: ["cx.test", "sub.cx2.test"], now: 160)
        #expect(pruned.map(\.address).sorted() == ["a@cx.test", "b@sub.cx2.test"])
        #expect(pruned.allSatisfy { $0.reason == .age })
        #expect(try await store.page(address: "a@cx.test", page: 1).map(\.subject) == ["new"])
        #expect(try await store.page(address: "b@sub.cx2.test", page: 1).isEmpty)
        #expect(try await store.page(address: "a@mail.test", page: 1).count == 1, "another domain's mail stays")
        #expect(try await store.page(address: "a@xcx.test", page: 1).count == 1, "a domain that only ends alike stays")
        #expect(try await store.state(address: "a@cx.test") > before)
        #expect(try await store.prune(olderThan: 1, onDomains: [], now: 1_000).isEmpty)
    }
}
