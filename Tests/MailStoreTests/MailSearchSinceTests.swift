import MIME
import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// The operator's queue reads: `since` a message or a second, `start` and `limit`, the count, and read/unread.
@Suite("Mail store: search since a point, paged, counted", .serialized, .timeLimit(.minutes(1)))
struct MailSearchSinceTests {
    /// Five messages to two addresses: a at second 10, b and c in second 20 (in that order), d and e at second 30.
    static func fill(_ store: MailStore) async throws -> [String] {
        var ids: [String] = []
        for (subject, second, address) in [
            ("a", 10, "one@mail.localhost"), ("b", 20, "two@mail.localhost"), ("c", 20, "one@mail.localhost"),
            ("d", 30, "two@mail.localhost"), ("e", 30, "one@mail.localhost"),
        ] {
            ids += try await store.deliver(
                MailStoreTests.message(subject), to: [.init(address: address, quota: 10_000)], folder: .inbox,
                now: Int64(second))
        }
        return ids
    }

    static func subjects(_ summaries: [MailSummary]) -> [String] { summaries.compactMap(\.subject) }

    @Test(
        "since a message: only what arrived after it, its own second included by arrival order",
        arguments: StorageBackend.allCases)
    func sinceMessage(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let ids = try await Self.fill(store)
        let afterB = try #require(try await store.point(ofMessage: ids[1]))
        #expect(Self.subjects(try await store.search(MailSearch(since: afterB))) == ["e", "d", "c"])
        #expect(try await store.oldestMatch(MailSearch(since: afterB), timeout: .zero)?.subject == "c")
        #expect(try await store.oldestMatch(MailSearch(address: "two@mail.localhost", since: afterB), timeout: .zero)?.subject == "d")
        let afterE = try #require(try await store.point(ofMessage: ids[4]))
        #expect(try await store.search(MailSearch(since: afterE)).isEmpty)
        #expect(try await store.oldestMatch(MailSearch(since: afterE), timeout: .zero) == nil)
        #expect(try await store.point(ofMessage: "no-such-id") == nil)
    }

    @Test("since a second: that second and later", arguments: StorageBackend.allCases)
    func sinceSecond(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        _ = try await Self.fill(store)
        #expect(Self.subjects(try await store.search(MailSearch(since: .second(20)))) == ["e", "d", "c", "b"])
        #expect(Self.subjects(try await store.search(MailSearch(since: .second(21)))) == ["e", "d"])
        #expect(try await store.oldestMatch(MailSearch(since: .second(11)), timeout: .zero)?.subject == "b")
        #expect(try await store.count(MailSearch(since: .second(31))) == 0)
    }

    @Test(
        "start and limit page the newest-first list; count counts every match", arguments: StorageBackend.allCases)
    func pages(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        _ = try await Self.fill(store)
        #expect(Self.subjects(try await store.search(MailSearch(), limit: 2)) == ["e", "d"])
        #expect(Self.subjects(try await store.search(MailSearch(), limit: 2, start: 2)) == ["c", "b"])
        #expect(Self.subjects(try await store.search(MailSearch(), limit: 2, start: 4)) == ["a"])
        #expect(try await store.search(MailSearch(), limit: 2, start: 5).isEmpty)
        #expect(try await store.count(MailSearch()) == 5)
        #expect(try await store.count(MailSearch(address: "one@mail.localhost")) == 3)
        #expect(try await store.count(MailSearch(address: "one@mail.localhost", since: .second(20))) == 2)
    }

    @Test(
        "holdsMail matches one envelope recipient whole: not a part of one, not another address's mail",
        arguments: StorageBackend.allCases)
    func holdsMailSentTo(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        _ = try await store.deliver(
            MailStoreTests.message("caught"),
            to: [.init(address: "catch@mail.localhost", quota: 10_000, envelopeTo: ["jimbob@x.org", "ann_e@x.org"])],
            folder: .inbox, now: 10)
        #expect(try await store.holdsMail(address: "catch@mail.localhost", sentTo: "jimbob@x.org"))
        #expect(try await store.holdsMail(address: "catch@mail.localhost", sentTo: "Ann_E@x.org"))
        #expect(try await !store.holdsMail(address: "catch@mail.localhost", sentTo: "bob@x.org"))
        #expect(try await !store.holdsMail(address: "catch@mail.localhost", sentTo: "ann%@x.org"))
        #expect(try await !store.holdsMail(address: "other@mail.localhost", sentTo: "jimbob@x.org"))
    }

    @Test(
        "holdingAddress names one address that holds mail, whatever its case; nil for one that holds none",
        arguments: StorageBackend.allCases)
    func holdingAddress(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        _ = try await Self.fill(store)
        #expect(try await store.holdingAddress("One@Mail.localhost") == "one@mail.localhost")
        #expect(try await store.holdingAddress("two@mail.localhost") == "two@mail.localhost")
        #expect(try await store.holdingAddress("three@mail.localhost") == nil)
        #expect(try await store.holdingAddress("one@mail.localhos") == nil)
        #expect(try await store.addresses() == ["one@mail.localhost", "two@mail.localhost"])
    }

    @Test(
        "markRead marks read and unread, counting changes: 0 for another's id, or one already so (nothing announced)",
        arguments: StorageBackend.allCases)
    func readAndUnread(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let ids = try await Self.fill(store)
        #expect(try await store.markRead(address: "one@mail.localhost", ids: [ids[0]], read: true) == 1)
        #expect(try await store.message(address: "one@mail.localhost", id: ids[0])?.summary.isRead == true)
        #expect(try await store.oldestUnread(address: "one@mail.localhost")?.subject == "c")
        let ticket = store.changes.ticket()
        #expect(try await store.markRead(address: "one@mail.localhost", ids: [ids[0]], read: true) == 0)
        #expect(store.changes.ticket() == ticket, "nothing changed, nothing announced")
        #expect(try await store.markRead(address: "one@mail.localhost", ids: [ids[0]], read: false) == 1)
        #expect(store.changes.ticket() != ticket)
        #expect(try await store.message(address: "one@mail.localhost", id: ids[0])?.summary.isRead == false)
        #expect(try await store.oldestUnread(address: "one@mail.localhost")?.subject == "a")
        #expect(try await store.markRead(address: "one@mail.localhost", ids: [ids[1]], read: true) == 0)
        #expect(try await store.markRead(address: "one@mail.localhost", ids: ["no-such-id"], read: true) == 0)
        #expect(try await store.markRead(address: "one@mail.localhost", ids: nil, read: true) == 3)
        #expect(try await store.markRead(address: "one@mail.localhost", ids: nil, read: false) == 3)
    }
}
