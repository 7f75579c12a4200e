import Audit
import HTTP1
import OAuthServer
import PosternTestSupport
import ServerKit
import Storage
import Testing

/// What a client credentials grant (`POST /oauth/token`, the path PostgreSQL takes) asks of storage, pinned (issue 86):
/// the client with its inboxes in one read, then the grant and its audit line in one write. On PostgreSQL that write is
/// one statement (a data-modifying `WITH`), so the grant is two round trips once the connection has prepared both
/// (`PostgresConnectionTests`); the grant and its audit line as separate inserts would be three, a transaction two
/// more. On SQLite the two inserts run in a transaction of their own (a savepoint of group commit's batch).
@Suite("OAuth client credentials: what a grant costs the store, and its audit line written with it or not at all")
struct OAuthClientCredentialsCostTests {
    /// A fixture's service again, over `database` (the fixture's own behind a ``CountingDatabase``), and its routes.
    static func router(_ fixture: ConfidentialFixture, over database: any SQLDatabase) throws -> ContextRouter {
        let harness = fixture.harness
        let service = try OAuthHarness.service(
            database, keys: harness.keys, owners: harness.owners, inboxes: harness.inboxes, pool: harness.pool,
            clock: harness.clock)
        var router = ContextRouter()
        service.register(into: &router)
        return router
    }

    @Test(
        "a grant is one read and one write: 2 statements on PostgreSQL, 3 in a transaction on SQLite",
        arguments: StorageBackend.allCases)
    func cost(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let counting = CountingDatabase(fixture.harness.test.database)
        let router = try Self.router(fixture, over: counting)
        let client = try await fixture.client()
        let basic = ConfidentialFixture.basic(client.id, try #require(client.secret))
        let form = [("grant_type", "client_credentials"), ("resource", fixture.mcp)]
        var response: HTTPResponse?
        let cost = await counting.counting {
            response = await fixture.harness.send(.POST, "/oauth/token", form: form, headers: [basic], through: router)
        }
        #expect(response?.status == .ok)
        let expected =
            switch backend {
            case .postgres: CountingDatabase.Counts(calls: 2, statements: 2, transactions: 0)
            case .sqlite: CountingDatabase.Counts(calls: 2, statements: 3, transactions: 1)
            }
        #expect(cost == expected, "\(cost)")
        let events = try await fixture.harness.auditEvents().filter { $0.action == .clientCredentialsGranted }
        #expect(events.count == 1 && events.allSatisfy { $0.actorID == client.id && $0.actorKind == .app })
        #expect(try await fixture.grantCount() == 1)
    }

    @Test("an audit line that cannot be written leaves no grant and no token", arguments: StorageBackend.allCases)
    func bothOrNeither(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let outage = InjectedOutage()
        let router = try Self.router(
            fixture, over: CountingDatabase(fixture.harness.test.database, beforeStatement: outage.beforeStatement))
        let client = try await fixture.client()
        let basic = ConfidentialFixture.basic(client.id, try #require(client.secret))
        // SQLite: the grant's insert has run when the audit line's fails; PostgreSQL: the one statement fails.
        outage.arm { $0.contains("INSERT INTO audit_events") }
        let response = await fixture.harness.send(
            .POST, "/oauth/token", form: [("grant_type", "client_credentials"), ("resource", fixture.mcp)],
            headers: [basic], through: router)
        outage.end()
        #expect(outage.failed == 1)
        #expect(response.status == .serviceUnavailable)
        #expect(OAuthHarness.json(response)?["access_token"] == nil)
        #expect(try await fixture.grantCount() == 0)
        #expect(try await fixture.harness.auditEvents().filter { $0.action == .clientCredentialsGranted }.isEmpty)
    }
}
