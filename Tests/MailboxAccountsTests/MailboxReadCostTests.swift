import PosternTestSupport
import Testing

@testable import MailboxAccounts

/// What the read behind `make bench`'s PostgreSQL row (`GET /api/accounts/{id}` with the account's mailbox token)
/// asks of storage, pinned (issue 53): the bearer check and the account are one statement, outside any transaction, in
/// one call to a connection's queue. On PostgreSQL that is one round trip once the pooled connection has prepared it
/// (`PostgresConnectionTests`); a second lookup, a transaction (BEGIN and COMMIT: two more) or a session check would
/// show here first.
@Suite("Mail.td's account read: one storage call, one statement, no transaction")
struct MailboxReadCostTests {
    @Test(
        "GET /api/accounts/{id} (by id and by address) with the account's token: 1 call, 1 statement, 0 transactions",
        arguments: StorageBackend.allCases)
    func accountRead(backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend, counting: true)
        let storage = try #require(harness.storage)
        let (id, token) = try await harness.createAccount("reader@mail.localhost")
        for target in ["/api/accounts/\(id)", "/api/accounts/reader@mail.localhost"] {
            var status = 0
            let cost = await storage.counting { status = await harness.send(.GET, target, bearer: token).status }
            #expect(status == 200, "\(target)")
            #expect(cost == CountingDatabase.Counts(calls: 1, statements: 1, transactions: 0), "\(target): \(cost)")
        }
    }

    @Test("a refused token costs the same one statement, and no write", arguments: StorageBackend.allCases)
    func refusedRead(backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend, counting: true)
        let storage = try #require(harness.storage)
        let (id, token) = try await harness.createAccount("gone@mail.localhost")
        #expect(await harness.send(.DELETE, "/api/accounts/\(id)", bearer: token).status == 204)
        var status = 0
        let cost = await storage.counting { status = await harness.send(.GET, "/api/accounts/\(id)", bearer: token).status }
        #expect(status == 401)
        #expect(cost == CountingDatabase.Counts(calls: 1, statements: 1, transactions: 0), "\(cost)")
    }
}
