import Foundation
import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// mail.cx's retention (issue 72): the messages of every address on some domains go once older than a time; others
/// stay, and each address's state moves so its change streams and JMAP see the deletions.
@Suite("Mail store: messages past a domain's retention", .serialized)
struct MailRetentionTests {
    @Test("only the named domains' messages received before the time go; the state of each address moves",
        arguments: StorageBackend.allCases)
    func purge(_ backend: StorageBackend) async throws {
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
        let purged = try db.database.writeSync {
            try MailStore.purgeMessages($0, onDomains: ["cx.test", "sub.cx2.test"], receivedBefore: 150)
        }
        #expect(purged == 2)
        #expect(try await store.page(address: "a@cx.test", page: 1).map(\.subject) == ["new"])
        #expect(try await store.page(address: "b@sub.cx2.test", page: 1).isEmpty)
        #expect(try await store.page(address: "a@mail.test", page: 1).count == 1, "another domain's mail stays")
        #expect(try await store.page(address: "a@xcx.test", page: 1).count == 1, "a domain that only ends alike stays")
        #expect(try await store.state(address: "a@cx.test") > before)
        let none = try db.database.writeSync { try MailStore.purgeMessages($0, onDomains: [], receivedBefore: 1000) }
        #expect(none == 0)
    }
}
