import AuthCrypto
import Directory
import Foundation
import OAuthGrants
import PosternTestSupport
import Testing

@testable import PosternApp

/// Two instances on one PostgreSQL database: a token exchanged on instance A (RFC 8693, issue 86 item 3) and cached on
/// instance B dies on B at once when the owner's grant is revoked (0016's `postern_grants` notification carries the
/// grant the exchanged token is kept under) or when the owner removes the agent (0072's notification).
@Suite("Token exchange: exchanged tokens revoked across instances", .onPostgres, .timeLimit(.minutes(1)))
struct OAuthExchangeInvalidationTests {
    @Test("an exchanged token cached on B is dropped when A's owner revokes the grant, or removes the agent")
    func twoInstances() async throws {
        let pair = try await TwoInstanceGrants.start()
        defer { Task { await pair.stop() } }
        let h = pair.h
        let database = pair.first.runtime.database
        let grants = OAuthGrantStore(database: database)
        let made = try await OAuthConfidentialClients(database: database).create(
            .init(
                name: "agent", authMethod: .clientSecretBasic, permissions: .all, inboxes: [h.ada.accountID],
                introspection: false),
            ownerID: h.owner, now: OwnedInboxesFixture.now())
        let basic = "Basic " + Base64.encode(Array("\(made.client.clientID):\(made.secret ?? "")".utf8))
        #expect(
            try await grants.allowActor(ownerID: h.owner, clientID: made.client.clientID, now: OwnedInboxesFixture.now())
                == .allowed)
        func exchange(_ subject: String) async throws -> String {
            let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=\(subject)"
                + "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token"
            let response = try await pair.first.client().request(
                "POST", "/oauth/token",
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", basic)],
                body: Array(form.utf8))
            return try #require(try response.json()["access_token"] as? String, "\(response.status)")
        }

        // The owner's grant revoked (on A's database, as its owner page does): B refuses the exchanged token.
        let (subject, grant) = try h.token(resource: h.jmap)
        let exchanged = try await exchange(subject)
        #expect(try await pair.jmapOnB(exchanged).status == 200)
        #expect(pair.cache.count == 1)
        #expect(try await grants.revoke(grantID: grant, now: OwnedInboxesFixture.now()))
        #expect(try await pair.drained())
        #expect(try await pair.jmapOnB(exchanged).status == 401)

        // The agent removed: B refuses its token, while the owner's own token stays good.
        let (again, _) = try h.token(resource: h.jmap)
        let agents = try await exchange(again)
        #expect(try await pair.jmapOnB(agents).status == 200)
        #expect(pair.cache.count == 1)
        #expect(
            try await grants.removeActor(ownerID: h.owner, clientID: made.client.clientID, now: OwnedInboxesFixture.now()))
        #expect(try await pair.drained())
        #expect(try await pair.jmapOnB(agents).status == 401)
        #expect(try await pair.jmapOnB(again).status == 200)
    }
}
