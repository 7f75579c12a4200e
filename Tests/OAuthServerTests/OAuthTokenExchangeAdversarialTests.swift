import AuthCrypto
import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Testing

@Suite("Token exchange and JWT bearer: a volley of adversarial requests mints nothing")
struct OAuthTokenExchangeAdversarialTests {
    /// One request that must be refused: what it is, how it is sent, the RFC's code it must get.
    struct Refusal {
        let name: String
        let send: () async -> HTTPResponse
        let code: String
    }

    @Test("over 200 refused exchanges and assertions, each with the RFC's code, leave no token", arguments: StorageBackend.allCases)
    func volley(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend) { $0.tokenExchangeMaxDepth = 3 }
        let harness = fixture.harness
        let now = harness.clock.now
        let agent = fixture.agent
        var refusals: [Refusal] = []
        func add(_ name: String, _ code: String, _ send: @escaping () async -> HTTPResponse) {
            refusals.append(Refusal(name: name, send: send, code: code))
        }

        // Wider scope (a read-only subject), and scope names that are none of this server's.
        let (_, readOnly) = try await ExchangeFixture.ownerToken(
            harness, app: fixture.app.id, owner: fixture.owner, scopes: ["mail.read"])
        for i in 0..<10 {
            for scope in ["mail.send", "mail.read mail.send"] {
                add("wider scope \(scope) \(i)", "invalid_scope") { await fixture.exchange(readOnly, as: agent, [("scope", scope)]) }
            }
        }
        for i in 0..<4 {
            for scope in ["admin", "openid", "mail.delete", "MAIL.READ", "mail.read admin"] {
                add("unknown scope \(scope) \(i)", "invalid_scope") {
                    await fixture.exchange(fixture.subject, as: agent, [("scope", scope)])
                }
            }
        }
        // Another audience, as resource or as audience.
        let audiences = [
            issuer + "/mcp", issuer + "/jmap/", issuer + "/JMAP", "https://evil.example/jmap", issuer,
            "urn:atomicmail:agent:" + fixture.owner.inbox, "urn:atomicmail:agent:not-a-uuid", " " + jmapResource,
            jmapResource + "#f", jmapResource + "?x=1", "http://127.0.0.1:8081/jmap", "mail",
        ]
        for audience in audiences {
            for field in ["resource", "audience"] {
                add("\(field) \(audience)", "invalid_target") {
                    await fixture.exchange(fixture.subject, as: agent, [(field, audience)])
                }
            }
        }
        for i in 0..<4 {
            add("resource and audience differ \(i)", "invalid_target") {
                await fixture.exchange(fixture.subject, as: agent, [("resource", jmapResource), ("audience", issuer + "/mcp")])
            }
        }
        // Another owner's subject: this agent acts for its own owner only.
        let other = try await harness.owner("other@example.com", inbox: "other-inbox")
        let (_, othersToken) = try await ExchangeFixture.ownerToken(harness, app: fixture.app.id, owner: other)
        for i in 0..<15 {
            add("another owner's subject \(i)", "unauthorized_client") { await fixture.exchange(othersToken, as: agent) }
        }
        // An actor the owner did not allow: another of the owner's agent clients, an operator's client, an app.
        let stranger = try await ExchangeFixture.client(harness, owner: fixture.owner.id, inbox: fixture.owner.inbox)
        let operators = try await ExchangeFixture.client(harness, owner: nil, inbox: nil)
        for i in 0..<10 {
            add("unallowed agent \(i)", "unauthorized_client") { await fixture.exchange(fixture.subject, as: stranger) }
            add("unallowed operator client \(i)", "unauthorized_client") { await fixture.exchange(fixture.subject, as: operators) }
        }
        let app = try await harness.registerClient(method: "client_secret_post")
        for i in 0..<10 {
            add("registered app \(i)", "unauthorized_client") {
                await harness.send(
                    .POST, "/oauth/token",
                    form: [
                        ("grant_type", ExchangeFixture.exchangeGrant), ("subject_token", fixture.subject),
                        ("subject_token_type", ExchangeFixture.accessTokenType), ("client_id", app.id),
                        ("client_secret", app.secret ?? ""),
                    ])
            }
        }
        // Expired, revoked, forged or garbage subjects.
        for i in 0..<10 {
            let expired = try harness.keys.sign(
                OAuthAccessClaims(
                    ownerID: fixture.owner.id, clientID: fixture.app.id, resource: jmapResource, permissions: .all,
                    jti: SecureRandom.identifier(byteCount: 16)
                ).claims(issuer: issuer, issuedAt: now - 2_000, ttl: 900), for: OAuthAccessClaims.purpose)
            add("expired subject \(i)", "invalid_request") { await fixture.exchange(expired, as: agent) }
            let unknown = try harness.keys.sign(
                OAuthAccessClaims(
                    ownerID: fixture.owner.id, clientID: fixture.app.id, resource: jmapResource, permissions: .all,
                    jti: SecureRandom.identifier(byteCount: 16)
                ).claims(issuer: issuer, issuedAt: now, ttl: 900), for: OAuthAccessClaims.purpose)
            add("subject with no grant \(i)", "invalid_request") { await fixture.exchange(unknown, as: agent) }
            add("garbage subject \(i)", "invalid_request") {
                await fixture.exchange(SecureRandom.identifier(byteCount: 24), as: agent)
            }
        }
        let (revokedGrant, revoked) = try await ExchangeFixture.ownerToken(harness, app: fixture.app.id, owner: fixture.owner)
        #expect(try await harness.service.grants.revoke(grantID: revokedGrant.id, now: now))
        for i in 0..<15 { add("revoked subject \(i)", "invalid_request") { await fixture.exchange(revoked, as: agent) } }
        // Depth past the limit: three agents deep, a fourth may not nest.
        var chained = fixture.subject
        for _ in 0..<2 {
            let next = try await fixture.allowedAgent()
            if chained == fixture.subject { chained = try ExchangeFixture.token(await fixture.exchange(chained, as: agent)) }
            chained = try ExchangeFixture.token(await fixture.exchange(chained, as: next))
        }
        #expect(try ExchangeFixture.claims(chained)["act"]?["act"]?["act"]?["sub"] != nil)
        let fourth = try await fixture.allowedAgent()
        for i in 0..<10 { add("depth past the limit \(i)", "invalid_request") { await fixture.exchange(chained, as: fourth) } }
        // Malformed requests.
        for i in 0..<5 {
            add("no subject_token \(i)", "invalid_request") { await fixture.exchange("", as: agent) }
            add("unknown subject_token_type \(i)", "invalid_request") {
                await fixture.exchange(fixture.subject, as: agent, type: "urn:ietf:params:oauth:token-type:refresh_token")
            }
            add("requested_token_type refresh \(i)", "invalid_request") {
                await fixture.exchange(
                    fixture.subject, as: agent,
                    [("requested_token_type", "urn:ietf:params:oauth:token-type:refresh_token")])
            }
            add("actor_token of a secret client \(i)", "invalid_request") {
                await fixture.exchange(
                    fixture.subject, as: agent,
                    [("actor_token", "a.b.c"), ("actor_token_type", "urn:ietf:params:oauth:token-type:jwt")])
            }
            add("wrong client secret \(i)", "invalid_client") {
                await fixture.exchange(fixture.subject, as: (agent.id, OAuthDigest.newToken()))
            }
        }
        // Identity assertions (JWT bearer: invalid_grant; as a subject token: invalid_request).
        let idpStranger = try IDJAGSigner()
        let assertionCases: [(String, () throws -> String)] = [
            ("untrusted issuer", { try fixture.signer.assertion(issuer: "https://evil.example", client: agent.id, now: now) }),
            ("bad signature", { try idpStranger.assertion(client: agent.id, now: now) }),
            ("wrong typ", { try fixture.signer.assertion(client: agent.id, now: now, typ: "JWT") }),
            ("id_token typ", { try fixture.signer.assertion(client: agent.id, now: now, typ: "at+jwt") }),
            ("wrong aud", { try fixture.signer.assertion(client: agent.id, now: now, ["aud": "https://other.example"]) }),
            ("expired", { try fixture.signer.assertion(client: agent.id, now: now, ["exp": .int(now - 120)]) }),
            ("another client", { try fixture.signer.assertion(client: stranger.id, now: now) }),
            ("unknown person", { try fixture.signer.assertion(subject: "mallory", client: agent.id, now: now) }),
            ("no jti", { try fixture.signer.assertion(client: agent.id, now: now, ["jti": nil]) }),
            ("a year ahead", { try fixture.signer.assertion(client: agent.id, now: now, ["exp": .int(now + 31_536_000)]) }),
        ]
        for (name, make) in assertionCases {
            for i in 0..<3 {
                let assertion = try make()
                add("jwt-bearer \(name) \(i)", "invalid_grant") { await fixture.bearer(assertion, as: agent) }
            }
            let subject = try make()
            add("id-jag subject \(name)", "invalid_request") {
                await fixture.exchange(subject, as: agent, type: ExchangeFixture.idJAGType)
            }
        }
        for i in 0..<5 {
            let mayAct = try fixture.signer.assertion(
                client: agent.id, now: now, ["may_act": .object([("sub", .string(stranger.id))])])
            add("may_act names another \(i)", "invalid_request") {
                await fixture.exchange(mayAct, as: agent, type: ExchangeFixture.idJAGType)
            }
            let wide = try fixture.signer.assertion(client: agent.id, now: now, ["scope": "mail.read"])
            add("jwt-bearer wider scope \(i)", "invalid_scope") { await fixture.bearer(wide, as: agent, [("scope", "mail.send")]) }
            let unallowed = try fixture.signer.assertion(client: stranger.id, now: now)
            add("jwt-bearer unallowed client \(i)", "unauthorized_client") { await fixture.bearer(unallowed, as: stranger) }
        }
        // One good assertion mints; its replays, as a grant or as a subject, mint nothing.
        let used = try fixture.signer.assertion(client: agent.id, now: now)
        #expect(await fixture.bearer(used, as: agent).status == .ok)
        for i in 0..<15 { add("replayed jti \(i)", "invalid_grant") { await fixture.bearer(used, as: agent) } }
        for i in 0..<5 {
            add("replayed jti as subject \(i)", "invalid_request") {
                await fixture.exchange(used, as: agent, type: ExchangeFixture.idJAGType)
            }
        }

        let before = try await fixture.delegatedCount()
        var refused = 0
        for refusal in refusals {
            let response = await refusal.send()
            #expect(OAuthHarness.error(response) == refusal.code, "\(refusal.name): \(String(decoding: response.body, as: UTF8.self))")
            #expect(OAuthHarness.json(response)?["access_token"] == nil, "\(refusal.name)")
            if OAuthHarness.error(response) == refusal.code { refused += 1 }
        }
        #expect(refused >= 200 && refused == refusals.count, "\(refused) of \(refusals.count)")
        #expect(try await fixture.delegatedCount() == before)
    }
}
