import HTTP1
import JSON
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Testing

@Suite("OAuth introspection (RFC 7662)")
struct OAuthIntrospectionTests {
    /// Exactly the inactive answer.
    static func inactive(_ response: HTTPResponse) -> Bool {
        response.status == .ok && String(decoding: response.body, as: UTF8.self) == #"{"active":false}"#
    }

    @Test(
        "a client's own token is active until revoked; then, and for garbage, exactly {\"active\":false}",
        arguments: StorageBackend.allCases)
    func clientToken(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let agent = try await fixture.client(scope: "mail.read")
        let introspector = try await fixture.client(inboxes: [], introspection: true)
        let issued = await fixture.token([], headers: [ConfidentialFixture.basic(agent.id, agent.secret ?? "")])
        let token = try #require(OAuthHarness.json(issued)?["access_token"]?.stringValue)
        let now = fixture.harness.clock.now

        let answer = await fixture.introspect(token, as: introspector)
        #expect(answer.status == .ok)
        #expect(answer.headers["Cache-Control"] == "no-store")
        let body = try #require(OAuthHarness.json(answer))
        #expect(body["active"] == .bool(true))
        #expect(body["sub"]?.stringValue == agent.id && body["client_id"]?.stringValue == agent.id)
        #expect(body["scope"]?.stringValue == "mail.read" && body["aud"]?.stringValue == fixture.mcp)
        #expect(body["exp"]?.intValue == now + 900 && body["iat"]?.intValue == now)
        #expect(body["token_type"]?.stringValue == "Bearer" && body["iss"]?.stringValue == issuer)

        for garbage in ["garbage", token + "x", "a.b.c", String(repeating: "x", count: 20_000)] {
            #expect(Self.inactive(await fixture.introspect(garbage, as: introspector)))
        }
        // The client revokes its own token (RFC 7009): inactive at once.
        let revoked = await fixture.harness.send(
            .POST, "/oauth/revoke", form: [("token", token)],
            headers: [ConfidentialFixture.basic(agent.id, agent.secret ?? "")])
        #expect(revoked.status == .ok)
        #expect(Self.inactive(await fixture.introspect(token, as: introspector)))

        // Deleting a client ends its tokens too.
        let again = await fixture.token([], headers: [ConfidentialFixture.basic(agent.id, agent.secret ?? "")])
        let second = try #require(OAuthHarness.json(again)?["access_token"]?.stringValue)
        #expect(OAuthHarness.json(await fixture.introspect(second, as: introspector))?["active"] == .bool(true))
        #expect(try await fixture.clients.delete(clientID: agent.id))
        #expect(Self.inactive(await fixture.introspect(second, as: introspector)))
        // An expired token is inactive.
        let third = try await fixture.client()
        let late = try #require(
            OAuthHarness.json(await fixture.token([], headers: [ConfidentialFixture.basic(third.id, third.secret ?? "")]))?[
                "access_token"]?.stringValue)
        fixture.harness.clock.advance(931)
        #expect(Self.inactive(await fixture.introspect(late, as: introspector)))
    }

    @Test("an owner's access and refresh tokens are active while their grant lives", arguments: StorageBackend.allCases)
    func ownerTokens(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let harness = fixture.harness
        let introspector = try await fixture.client(inboxes: [], introspection: true)
        let app = try await harness.registerClient()
        let owner = try await harness.owner("second@example.com", inbox: "second-inbox")
        let issued = try await harness.code(clientID: app.id, ownerID: owner.id, agentID: owner.inbox)
        let body = try #require(
            OAuthHarness.json(await harness.exchange(issued.code, clientID: app.id, verifier: issued.verifier)))
        let access = try #require(body["access_token"]?.stringValue)
        let refresh = try #require(body["refresh_token"]?.stringValue)

        let accessAnswer = try #require(OAuthHarness.json(await fixture.introspect(access, as: introspector)))
        #expect(accessAnswer["active"] == .bool(true) && accessAnswer["sub"]?.stringValue == owner.id)
        #expect(accessAnswer["client_id"]?.stringValue == app.id && accessAnswer["aud"]?.stringValue == jmapResource)
        let refreshAnswer = try #require(OAuthHarness.json(await fixture.introspect(refresh, as: introspector)))
        #expect(refreshAnswer["active"] == .bool(true) && refreshAnswer["token_type"]?.stringValue == "refresh_token")
        #expect(refreshAnswer["scope"]?.stringValue == "mail.read mail.send")

        // A rotated refresh token is inactive; its successor is active.
        let rotated = try OAuthHarness.refreshToken(await harness.refresh(refresh, clientID: app.id))
        #expect(Self.inactive(await fixture.introspect(refresh, as: introspector)))
        #expect(OAuthHarness.json(await fixture.introspect(rotated, as: introspector))?["active"] == .bool(true))
        // The owner revokes the grant: every token of it is inactive at once.
        #expect(try await harness.service.grants.revoke(grantID: issued.grant.id, now: harness.clock.now))
        #expect(Self.inactive(await fixture.introspect(access, as: introspector)))
        #expect(Self.inactive(await fixture.introspect(rotated, as: introspector)))
    }

    @Test("only an authenticated client made with --introspection may introspect", arguments: [StorageBackend.sqlite])
    func who(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let plain = try await fixture.client()
        let introspector = try await fixture.client(inboxes: [], introspection: true)
        let forbidden = await fixture.introspect("x", as: plain)
        #expect(forbidden.status == .forbidden && OAuthHarness.error(forbidden) == "unauthorized_client")
        let wrong = await fixture.introspect("x", as: (introspector.id, "wrong"))
        #expect(wrong.status == .unauthorized && OAuthHarness.error(wrong) == "invalid_client")
        #expect(wrong.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        let anonymous = await fixture.harness.send(.POST, "/oauth/introspect", form: [("token", "x")])
        #expect(anonymous.status == .unauthorized && OAuthHarness.error(anonymous) == "invalid_client")
        let app = try await fixture.harness.registerClient(method: "client_secret_post")
        let registered = await fixture.harness.send(
            .POST, "/oauth/introspect",
            form: [("token", "x"), ("client_id", app.id), ("client_secret", app.secret ?? "")])
        #expect(registered.status == .forbidden)
        let missing = await fixture.harness.send(
            .POST, "/oauth/introspect", form: [],
            headers: [ConfidentialFixture.basic(introspector.id, introspector.secret ?? "")])
        #expect(OAuthHarness.error(missing) == "invalid_request")
    }

    @Test("introspection has its own rate per address, apart from the token endpoint's", arguments: [StorageBackend.sqlite])
    func rate(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend) {
            $0.rateLimitsEnabled = true
            $0.introspectionsPerMinute = 3
            $0.requestsPerMinute = 3
        }
        let introspector = try await fixture.client(inboxes: [], introspection: true)
        for _ in 0..<3 { #expect(Self.inactive(await fixture.introspect("x", as: introspector))) }
        let limited = await fixture.introspect("x", as: introspector)
        #expect(limited.status == .tooManyRequests && limited.headers["Retry-After"] != nil)
        // The token endpoint's bucket is untouched by the introspections.
        let agent = try await fixture.client()
        let token = await fixture.token([], headers: [ConfidentialFixture.basic(agent.id, agent.secret ?? "")])
        #expect(token.status == .ok)
    }
}
