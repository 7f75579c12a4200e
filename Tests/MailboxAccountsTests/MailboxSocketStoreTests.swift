import PosternTestSupport
import Testing

@testable import MailboxAccounts

@Suite("mail.cx sockets: at most 3 per account, across instances (mailbox_sockets)")
struct MailboxSocketStoreTests {
    @Test("eight instances claiming at once for one account: exactly 3 places", arguments: StorageBackend.allCases)
    func race(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let stores = try (0..<8).map { _ in MailboxStore(database: try test.another()) }
        let claimed = await withTaskGroup(of: Bool.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    (try? await store.claimSocket(
                        id: "socket-\(index)", accountID: "account-1", now: 1000, expiresAt: 1090, limit: 3)) ?? false
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(claimed.filter { $0 }.count == 3)
        #expect(try await stores[0].claimSocket(id: "other", accountID: "account-2", now: 1000, expiresAt: 1090, limit: 3))
    }

    @Test("a closed socket gives its place back; one left by a dead instance counts until it expires",
        arguments: StorageBackend.allCases)
    func release(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let store = MailboxStore(database: test.database)
        for index in 0..<3 {
            #expect(try await store.claimSocket(id: "s\(index)", accountID: "a", now: 1000, expiresAt: 1090, limit: 3))
        }
        #expect(try await !store.claimSocket(id: "s3", accountID: "a", now: 1000, expiresAt: 1090, limit: 3))
        try await store.releaseSocket(id: "s0")
        #expect(try await store.claimSocket(id: "s3", accountID: "a", now: 1001, expiresAt: 1091, limit: 3))
        // s1 is pushed on; s2 (its instance gone) is not, and stops counting at 1090.
        try await store.refreshSocket(id: "s1", expiresAt: 1200)
        #expect(try await !store.claimSocket(id: "s4", accountID: "a", now: 1089, expiresAt: 1179, limit: 3))
        #expect(try await store.claimSocket(id: "s4", accountID: "a", now: 1090, expiresAt: 1180, limit: 3))
    }
}
