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

    let test: TestDatabase
    let rows: OAuthGrantRows
    let told = Told()
    let store: OAuthGrantStore

    init() throws {
        test = try StorageBackend.current.makeDatabase()
        rows = OAuthGrantRows(database: test.database)
        store = OAuthGrantStore(database: test.database, observer: told)
    }

    func approve(owner: String, client: String, now: Int64 = 1_000) async throws -> (grant: OAuthGrant, code: String) {
        try await store.approve(
            ownerID: owner, clientID: client, agentID: nil, boundAccountID: nil, permissions: [.read, .send],
            resource: "https://postern.test/jmap", redirectURI: "http://127.0.0.1:9/cb", codeChallenge: "c", now: now,
            codeLifetime: 60, grantLifetime: 86_400)
    }

    @Test("revoke(grantID:) revokes once and tells the observer once; with an owner, only that owner's grant")
    func revokeOnce() async throws {
        let ada = try rows.owner()
        let bob = try rows.owner()
        let client = try rows.client()
        let (mine, _) = try await approve(owner: ada, client: client)
        #expect(try await !store.revoke(grantID: mine.id, now: 1_010, ownerID: bob))
        #expect(try await store.grant(id: mine.id)?.revoked == false)
        #expect(told.ids.withLock { $0 }.isEmpty)
        #expect(try await store.revoke(grantID: mine.id, now: 1_020, ownerID: ada))
        #expect(try await !store.revoke(grantID: mine.id, now: 1_030))
        #expect(told.ids.withLock { $0 } == [mine.id])
        #expect(try await store.grant(id: mine.id)?.revoked == true)

        let (other, _) = try await approve(owner: bob, client: client)
        #expect(try await store.revoke(grantID: other.id, now: 1_040))
        #expect(told.ids.withLock { $0 } == [mine.id, other.id])
    }

    @Test("a replayed code revokes its grant through the same revocation, observed")
    func replayRevokes() async throws {
        let owner = try rows.owner()
        let client = try rows.client()
        let (grant, code) = try await approve(owner: owner, client: client)
        let issue = OAuthIssue(refreshToken: "r-1", refreshExpiresAt: 5_000, jti: "j-1", accessExpiresAt: 1_900)
        guard case .ready(let ready, _) = try store.checkCode(
            code, clientID: client, redirectURI: "http://127.0.0.1:9/cb", now: 1_001)
        else { Issue.record("the code is not ready"); return }
        #expect(ready == grant && ready.permissions == [.read, .send])
        #expect(try await store.redeem(code, grant: grant, issue: issue, now: 1_001))
        let replay = try store.checkCode(code, clientID: client, redirectURI: nil, now: 1_002)
        #expect(replay == .replayed(grantID: grant.id))
        #expect(try await !store.redeem(code, grant: grant, issue: issue, now: 1_002))
        #expect(told.ids.withLock { $0 } == [grant.id])
    }

    @Test("a token's grant is found by jti, live until revoked, and matches only the claims minted for it")
    func recordByJTI() async throws {
        let owner = try rows.owner()
        let client = try rows.client()
        let (grant, code) = try await approve(owner: owner, client: client)
        let issue = OAuthIssue(refreshToken: "r-2", refreshExpiresAt: 5_000, jti: "j-2", accessExpiresAt: 1_900)
        #expect(try await store.redeem(code, grant: grant, issue: issue, now: 1_001))
        #expect(try await store.record(jti: "nobody") == nil)
        let record = try #require(try await store.record(jti: "j-2"))
        #expect(record.grantID == grant.id && record.isLive(at: 1_500) && !record.isLive(at: 1_900))
        let minted = OAuthAccessClaims(
            ownerID: owner, clientID: client, resource: grant.resource, permissions: .read, jti: "j-2")
        #expect(record.matches(minted))
        #expect(
            !record.matches(
                OAuthAccessClaims(
                    ownerID: owner, clientID: "another", resource: grant.resource, permissions: .read, jti: "j-2")))
        try await store.revoke(grantID: grant.id, now: 1_100)
        #expect(try await store.record(jti: "j-2")?.isLive(at: 1_500) == false)
    }

    @Test("an owner's connected apps: redeemed, live grants only, with the client's name and permissions")
    func connectedApps() async throws {
        let owner = try rows.owner()
        let client = try rows.client()
        let (redeemed, code) = try await approve(owner: owner, client: client)
        _ = try await approve(owner: owner, client: client, now: 1_005)  // its code never exchanged
        let issue = OAuthIssue(refreshToken: "r-3", refreshExpiresAt: 5_000, jti: "j-3", accessExpiresAt: 1_900)
        #expect(try await store.redeem(code, grant: redeemed, issue: issue, now: 1_001))
        let apps = try await store.connectedApps(ownerID: owner, now: 1_010)
        #expect(apps.map(\.id) == [redeemed.id])
        #expect(apps.first?.permissions == [.read, .send] && apps.first?.scopes == ["mail.read", "mail.send"])
        try await store.revoke(grantID: redeemed.id, now: 1_020)
        #expect(try await store.connectedApps(ownerID: owner, now: 1_030).isEmpty)
    }
}
