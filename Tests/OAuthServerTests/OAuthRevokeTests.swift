import HTTP1
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Testing

@Suite("OAuth revocation (RFC 7009)")
struct OAuthRevokeTests {
    @Test(
        "an unknown token is 200; a refresh or an access token revokes its grant; another client's changes nothing",
        arguments: StorageBackend.allCases)
    func revoke(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await OAuthTokenTests.setUp(backend)
        let other = try await harness.registerClient()
        let garbage = await harness.send(.POST, "/oauth/revoke", form: [("client_id", client), ("token", "garbage")])
        #expect(garbage.status == .ok)
        #expect(garbage.headers["Access-Control-Allow-Origin"] == "*")

        for kind in ["refresh_token", "access_token"] {
            let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
            let body = try #require(
                OAuthHarness.json(await harness.exchange(issued.code, clientID: client, verifier: issued.verifier)))
            let token = try #require(body[kind]?.stringValue)
            let foreign = await harness.send(.POST, "/oauth/revoke", form: [("client_id", other.id), ("token", token)])
            #expect(foreign.status == .ok)
            #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == false)
            let own = await harness.send(
                .POST, "/oauth/revoke", form: [("client_id", client), ("token", token), ("token_type_hint", kind)])
            #expect(own.status == .ok)
            #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == true)
            let refresh = try #require(body["refresh_token"]?.stringValue)
            #expect(OAuthHarness.error(await harness.refresh(refresh, clientID: client)) == "invalid_grant")
        }
    }

    @Test("revocation needs a known client and a token", arguments: StorageBackend.allCases)
    func errors(_ backend: StorageBackend) async throws {
        let (harness, client, _, _) = try await OAuthTokenTests.setUp(backend)
        #expect(OAuthHarness.error(await harness.send(.POST, "/oauth/revoke", form: [("token", "x")])) == "invalid_client")
        #expect(
            OAuthHarness.error(await harness.send(.POST, "/oauth/revoke", form: [("client_id", client)]))
                == "invalid_request")
    }
}
