import Audit
import Directory
import HTTP1
import JSON
import OAuthGrants
import OAuthResource
import OAuthServer
import PosternTestSupport
import Testing

@Suite("Token exchange (RFC 8693) and the JWT bearer grant of identity assertions")
struct OAuthTokenExchangeTests {
    @Test(
        "an allowed agent trades the owner's token for one with sub the owner and act the agent, narrower, no later",
        arguments: StorageBackend.allCases)
    func exchange(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend)
        let subjectClaims = try ExchangeFixture.claims(fixture.subject)
        let response = await fixture.exchange(fixture.subject, as: fixture.agent, [("scope", "mail.read")])
        #expect(response.status == .ok)
        let body = try #require(OAuthHarness.json(response))
        #expect(body["issued_token_type"]?.stringValue == ExchangeFixture.accessTokenType)
        #expect(body["token_type"]?.stringValue == "Bearer")
        #expect(body["scope"]?.stringValue == "mail.read")
        #expect(body["refresh_token"] == nil)
        let token = try ExchangeFixture.token(response)
        let claims = try ExchangeFixture.claims(token)
        #expect(claims["sub"]?.stringValue == fixture.owner.id)
        #expect(claims["client_id"]?.stringValue == fixture.agent.id)
        #expect(claims["act"] == .object([("sub", .string(fixture.agent.id))]))
        #expect(claims["aud"]?.stringValue == jmapResource)
        #expect(claims["scope"]?.stringValue == "mail.read")
        let exp = try #require(claims["exp"]?.intValue)
        #expect(exp <= (try #require(subjectClaims["exp"]?.intValue)))
        let introspected = try #require(await fixture.introspect(token))
        #expect(introspected["active"] == .bool(true))
        #expect(introspected["act"] == .object([("sub", .string(fixture.agent.id))]))
        #expect(introspected["sub"]?.stringValue == fixture.owner.id)
        #expect(introspected["client_id"]?.stringValue == fixture.agent.id)
        // A resource server reaches what the subject's grant reaches, as the owner, with the narrower scope.
        let verifier = OAuthAccessVerifier(
            configuration: OAuthResourceConfiguration(issuer: issuer, baseURL: issuer), keys: fixture.harness.keys,
            grants: OAuthGrantStore(database: fixture.harness.test.database), cache: nil,
            clock: { fixture.harness.clock.now })
        let access = try await verifier.grant(for: token, resources: [.jmap])
        #expect(access.ownerID == fixture.owner.id && access.clientID == fixture.agent.id)
        #expect(access.permissions == .read && access.grantID == fixture.grant.id)
        // One audit line per exchange, the agent as actor, the owner's.
        let events = try await fixture.harness.auditEvents().filter { $0.action == .tokenExchanged }
        #expect(events.count == 1)
        #expect(events.first?.actorID == fixture.agent.id && events.first?.ownerID == fixture.owner.id)
    }

    @Test(
        "a sub-agent nests act under its parent, up to the depth limit; the metadata lists both grants",
        arguments: StorageBackend.allCases)
    func nesting(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend) { $0.tokenExchangeMaxDepth = 2 }
        let sub = try await fixture.allowedAgent()
        let third = try await ExchangeFixture.client(fixture.harness, owner: nil, inbox: nil)
        #expect(try await fixture.allow(third.id) == .allowed)
        let first = try ExchangeFixture.token(await fixture.exchange(fixture.subject, as: fixture.agent))
        let second = try ExchangeFixture.token(await fixture.exchange(first, as: sub))
        let expected = JSONValue.object([
            ("sub", .string(sub.id)), ("act", .object([("sub", .string(fixture.agent.id))])),
        ])
        #expect(try ExchangeFixture.claims(second)["act"] == expected)
        #expect(await fixture.introspect(second)?["act"] == expected)
        let deeper = await fixture.exchange(second, as: third)
        #expect(OAuthHarness.error(deeper) == "invalid_request")
        let metadata = OAuthHarness.json(await fixture.harness.send(.GET, "/.well-known/oauth-authorization-server"))
        let grants = metadata?["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(grants.contains(ExchangeFixture.exchangeGrant) && grants.contains(ExchangeFixture.bearerGrant))
    }

    @Test(
        "revoking the owner's grant ends every token derived from it, in the cache too; removing an actor ends its own",
        arguments: StorageBackend.allCases)
    func revocationCascade(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend)
        let sub = try await fixture.allowedAgent()
        let first = try ExchangeFixture.token(await fixture.exchange(fixture.subject, as: fixture.agent))
        let second = try ExchangeFixture.token(await fixture.exchange(first, as: sub))
        let cache = OAuthGrantCache()
        let observed = OAuthGrantStore(database: fixture.harness.test.database, observer: cache)
        let verifier = OAuthAccessVerifier(
            configuration: OAuthResourceConfiguration(issuer: issuer, baseURL: issuer), keys: fixture.harness.keys,
            grants: observed, cache: cache, clock: { fixture.harness.clock.now })
        _ = try await verifier.grant(for: first, resources: [.jmap])
        _ = try await verifier.grant(for: second, resources: [.jmap])
        #expect(cache.count == 2)
        #expect(try await observed.revoke(grantID: fixture.grant.id, now: fixture.harness.clock.now))
        #expect(cache.count == 0)
        for token in [fixture.subject, first, second] {
            #expect(await fixture.introspect(token)?["active"] == .bool(false))
            await #expect(throws: AuthenticationRefusal.self) { try await verifier.grant(for: token, resources: [.jmap]) }
        }
        #expect(OAuthHarness.error(await fixture.exchange(first, as: sub)) == "invalid_request")

        // A fresh grant: removing the first agent ends its token and the sub-agent's below it, not the owner's.
        let (_, subject) = try await ExchangeFixture.ownerToken(fixture.harness, app: fixture.app.id, owner: fixture.owner)
        let again = try ExchangeFixture.token(await fixture.exchange(subject, as: fixture.agent))
        let below = try ExchangeFixture.token(await fixture.exchange(again, as: sub))
        let direct = try ExchangeFixture.token(await fixture.exchange(subject, as: sub))
        #expect(try await observed.removeActor(
            ownerID: fixture.owner.id, clientID: fixture.agent.id, now: fixture.harness.clock.now))
        #expect(await fixture.introspect(again)?["active"] == .bool(false))
        #expect(await fixture.introspect(below)?["active"] == .bool(false))
        #expect(await fixture.introspect(direct)?["active"] == .bool(true))
        #expect(await fixture.introspect(subject)?["active"] == .bool(true))
        #expect(OAuthHarness.error(await fixture.exchange(subject, as: fixture.agent)) == "unauthorized_client")
    }

    @Test(
        "an identity assertion from a trusted provider buys the owner's token (JWT bearer), and is a subject token",
        arguments: StorageBackend.allCases)
    func identityAssertions(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend)
        let now = fixture.harness.clock.now
        let assertion = try fixture.signer.assertion(client: fixture.agent.id, now: now)
        let response = await fixture.bearer(assertion, as: fixture.agent, [("scope", "mail.read")])
        let token = try ExchangeFixture.token(response)
        let claims = try ExchangeFixture.claims(token)
        #expect(claims["sub"]?.stringValue == fixture.owner.id && claims["act"] == nil)
        #expect(claims["client_id"]?.stringValue == fixture.agent.id && claims["aud"]?.stringValue == jmapResource)
        #expect(await fixture.introspect(token)?["active"] == .bool(true))
        #expect(OAuthHarness.error(await fixture.bearer(assertion, as: fixture.agent)) == "invalid_grant")

        let subjectAssertion = try fixture.signer.assertion(client: fixture.agent.id, now: now, ["scope": "mail.read"])
        let exchanged = await fixture.exchange(subjectAssertion, as: fixture.agent, type: ExchangeFixture.idJAGType)
        let exchangedClaims = try ExchangeFixture.claims(try ExchangeFixture.token(exchanged))
        #expect(exchangedClaims["act"] == .object([("sub", .string(fixture.agent.id))]))
        #expect(exchangedClaims["scope"]?.stringValue == "mail.read")
        #expect(try #require(exchangedClaims["exp"]?.intValue) <= now + 300)
        let events = try await fixture.harness.auditEvents()
        #expect(events.filter { $0.action == .identityAssertionGranted }.count == 1)
        #expect(events.filter { $0.action == .tokenExchanged }.count == 1)
    }

    @Test("an actor_token is the agent's own private_key_jwt assertion, each used once", arguments: StorageBackend.allCases)
    func actorToken(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend)
        let signer = try OAuthClientAssertionTests.Signer()
        let keyed = try await ExchangeFixture.client(
            fixture.harness, owner: fixture.owner.id, inbox: fixture.owner.inbox, method: .privateKeyJWT,
            jwks: signer.jwks)
        #expect(try await fixture.allow(keyed.id) == .allowed)
        let now = fixture.harness.clock.now
        func send(_ actor: String) async throws -> HTTPResponse {
            await fixture.harness.send(
                .POST, "/oauth/token",
                form: [
                    ("grant_type", ExchangeFixture.exchangeGrant), ("subject_token", fixture.subject),
                    ("subject_token_type", ExchangeFixture.accessTokenType),
                    ("client_assertion_type", OAuthClientCredential.jwtBearerType),
                    ("client_assertion", try signer.assertion(keyed.id, now: now)), ("actor_token", actor),
                    ("actor_token_type", "urn:ietf:params:oauth:token-type:jwt"),
                ])
        }
        let actor = try signer.assertion(keyed.id, now: now)
        let first = try await send(actor)
        #expect(try ExchangeFixture.claims(try ExchangeFixture.token(first))["act"] == .object([("sub", .string(keyed.id))]))
        #expect(OAuthHarness.error(try await send(actor)) == "invalid_request")
        let stranger = try OAuthClientAssertionTests.Signer().assertion(keyed.id, now: now)
        #expect(OAuthHarness.error(try await send(stranger)) == "invalid_request")
        let otherClient = try signer.assertion(fixture.agent.id, now: now)
        #expect(OAuthHarness.error(try await send(otherClient)) == "invalid_request")
    }

    @Test(
        "the agent revokes its exchanged token (RFC 7009): it and a sub-agent's token from it die, the owner's lives",
        arguments: StorageBackend.allCases)
    func holderRevokes(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend)
        let sub = try await fixture.allowedAgent()
        let first = try ExchangeFixture.token(await fixture.exchange(fixture.subject, as: fixture.agent))
        let below = try ExchangeFixture.token(await fixture.exchange(first, as: sub))
        let sibling = try ExchangeFixture.token(await fixture.exchange(fixture.subject, as: fixture.agent))
        func revoke(_ token: String, as client: (id: String, secret: String)) async -> HTTPResponse {
            await fixture.harness.send(
                .POST, "/oauth/revoke", form: [("token", token)],
                headers: [ConfidentialFixture.basic(client.id, client.secret)])
        }
        #expect(await revoke(first, as: sub).status == .ok)
        #expect(await fixture.introspect(first)?["active"] == .bool(true), "another client's revocation changes nothing")
        #expect(await revoke(first, as: fixture.agent).status == .ok)
        #expect(await fixture.introspect(first)?["active"] == .bool(false))
        #expect(await fixture.introspect(below)?["active"] == .bool(false))
        #expect(await fixture.introspect(sibling)?["active"] == .bool(true))
        #expect(await fixture.introspect(fixture.subject)?["active"] == .bool(true))
    }

    @Test("off, neither grant is served nor listed", arguments: StorageBackend.allCases)
    func off(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend) {
            $0.tokenExchange = false
            $0.jwtBearer = false
        }
        #expect(OAuthHarness.error(await fixture.exchange(fixture.subject, as: fixture.agent)) == "unsupported_grant_type")
        let assertion = try fixture.signer.assertion(client: fixture.agent.id, now: fixture.harness.clock.now)
        #expect(OAuthHarness.error(await fixture.bearer(assertion, as: fixture.agent)) == "unsupported_grant_type")
        let metadata = OAuthHarness.json(await fixture.harness.send(.GET, "/.well-known/oauth-authorization-server"))
        let grants = metadata?["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(!grants.contains(ExchangeFixture.exchangeGrant) && !grants.contains(ExchangeFixture.bearerGrant))
    }
}
