import Directory
import OAuthGrants
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// The grant model on its own: the one revocation and its observer, a token's grant found by `jti`, an owner's
/// connected apps.
@Suite("OAuth grants: one store for approve, redeem, rotate, revoke and the lookups")
struct OAuthGrantStoreTests {
    /// Remembers each grant it is told was revoked.
    final class Told: OAuthGrantRevocationObserver {
        let ids = Mutex<[String]>([])
        func grantRevoked(_ grantID: String) { ids.withLock { $0.append(grantID) } }
    }

    /// A store over a fresh database of one backend, its rows and its observer.
    struct Grants {
        let test: TestDatabase
        let rows: OAuthGrantRows
        let told = Told()
        let store: OAuthGrantStore

        init(_ backend: StorageBackend) throws {
            test = try backend.makeDatabase()
            rows = OAuthGrantRows(database: test.database)
            store = OAuthGrantStore(database: test.database, observer: told)
        }

        func approve(owner: String, client: String, now: Int64 = 1_000) async throws
            -> (grant: OAuthGrant, code: String)
        {
            try await store.approve(
                ownerID: owner, clientID: client, agentID: nil, boundAccountID: nil, permissions: [.read, .send],
                resource: "https://postern.test/jmap", redirectURI: "http://127.0.0.1:9/cb", codeChallenge: "c",
                now: now, codeLifetime: 60, grantLifetime: 86_400)
        }

        /// A new owner and client, and a grant approved for them (its code not yet exchanged).
        func approveNew() async throws -> (owner: String, client: String, grant: OAuthGrant, code: String) {
            let owner = try rows.owner()
            let client = try rows.client()
            let (grant, code) = try await approve(owner: owner, client: client)
            return (owner, client, grant, code)
        }
    }

    @Test(
        "revoke(grantID:) revokes once and tells the observer once; with an owner, only that owner's grant",
        arguments: StorageBackend.allCases)
    func revokeOnce(_ backend: StorageBackend) async throws {
        let grants = try Grants(backend)
        let ada = try grants.rows.owner()
        let bob = try grants.rows.owner()
        let client = try grants.rows.client()
        let (mine, _) = try await grants.approve(owner: ada, client: client)
        #expect(try await !grants.store.revoke(grantID: mine.id, now: 1_010, ownerID: bob))
        #expect(try await grants.store.grant(id: mine.id)?.revoked == false)
        #expect(grants.told.ids.withLock { $0 }.isEmpty)
        #expect(try await grants.store.revoke(grantID: mine.id, now: 1_020, ownerID: ada))
        #expect(try await !grants.store.revoke(grantID: mine.id, now: 1_030))
        #expect(grants.told.ids.withLock { $0 } == [mine.id])
        #expect(try await grants.store.grant(id: mine.id)?.revoked == true)

        let (other, _) = try await grants.approve(owner: bob, client: client)
        #expect(try await grants.store.revoke(grantID: other.id, now: 1_040))
        #expect(grants.told.ids.withLock { $0 } == [mine.id, other.id])
    }

    @Test(
        "a replayed code revokes its grant through the same revocation, observed",
        arguments: StorageBackend.allCases)
    func replayRevokes(_ backend: StorageBackend) async throws {
        let grants = try Grants(backend)
        let (_, client, grant, code) = try await grants.approveNew()
        let issue = OAuthIssue(refreshToken: "r-1", refreshExpiresAt: 5_000, jti: "j-1", accessExpiresAt: 1_900)
        guard case .ready(let ready, _) = try grants.store.checkCode(
            code, clientID: client, redirectURI: "http://127.0.0.1:9/cb", now: 1_001)
        else { Issue.record("the code is not ready"); return }
        #expect(ready == grant && ready.permissions == [.read, .send])
        #expect(try await grants.store.redeem(code, grant: grant, issue: issue, now: 1_001))
        let replay = try grants.store.checkCode(code, clientID: client, redirectURI: nil, now: 1_002)
        #expect(replay == .replayed(grantID: grant.id))
        #expect(try await !grants.store.redeem(code, grant: grant, issue: issue, now: 1_002))
        #expect(grants.told.ids.withLock { $0 } == [grant.id])
    }

    @Test(
        "a token's grant is found by jti, live until revoked, and matches only the claims minted for it",
        arguments: StorageBackend.allCases)
    func recordByJTI(_ backend: StorageBackend) async throws {
        let grants = try Grants(backend)
        let (owner, client, grant, code) = try await grants.approveNew()
        let issue = OAuthIssue(refreshToken: "r-2", refreshExpiresAt: 5_000, jti: "j-2", accessExpiresAt: 1_900)
        #expect(try await grants.store.redeem(code, grant: grant, issue: issue, now: 1_001))
        #expect(try await grants.store.record(jti: "nobody") == nil)
        let record = try #require(try await grants.store.record(jti: "j-2"))
        #expect(record.grantID == grant.id && record.isLive(at: 1_500) && !record.isLive(at: 1_900))
        let minted = OAuthAccessClaims(
            ownerID: owner, clientID: client, resource: grant.resource, permissions: .read, jti: "j-2")
        #expect(record.matches(minted))
        #expect(
            !record.matches(
                OAuthAccessClaims(
                    ownerID: owner, clientID: "another", resource: grant.resource, permissions: .read, jti: "j-2")))
        try await grants.store.revoke(grantID: grant.id, now: 1_100)
        #expect(try await grants.store.record(jti: "j-2")?.isLive(at: 1_500) == false)
    }

    @Test(
        "an owner's connected apps: redeemed, live grants only, with the client's name and permissions",
        arguments: StorageBackend.allCases)
    func connectedApps(_ backend: StorageBackend) async throws {
        let grants = try Grants(backend)
        let (owner, client, redeemed, code) = try await grants.approveNew()
        _ = try await grants.approve(owner: owner, client: client, now: 1_005)  // its code never exchanged
        let issue = OAuthIssue(refreshToken: "r-3", refreshExpiresAt: 5_000, jti: "j-3", accessExpiresAt: 1_900)
        #expect(try await grants.store.redeem(code, grant: redeemed, issue: issue, now: 1_001))
        let apps = try await grants.store.connectedApps(ownerID: owner, now: 1_010)
        #expect(apps.map(\.id) == [redeemed.id])
        #expect(apps.first?.permissions == [.read, .send] && apps.first?.scopes == ["mail.read", "mail.send"])
        try await grants.store.revoke(grantID: redeemed.id, now: 1_020)
        #expect(try await grants.store.connectedApps(ownerID: owner, now: 1_030).isEmpty)
    }
}
