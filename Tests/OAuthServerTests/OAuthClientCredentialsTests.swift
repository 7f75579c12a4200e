import Audit
import AuthCrypto
import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Storage
import Testing

/// The confidential clients of a harness, and requests in their name.
struct ConfidentialFixture {
    let harness: OAuthHarness
    let inbox: String
    let mcp = issuer + "/mcp"

    init(_ backend: StorageBackend, keyDocuments: (any OAuthDocumentFetching)? = nil,
        configure: (inout OAuthConfiguration) -> Void = { _ in }) async throws
    {
        harness = try OAuthHarness(backend, clientKeyDocuments: keyDocuments, configure: configure)
        inbox = try await harness.owner().inbox
    }

    var clients: OAuthConfidentialClients { OAuthConfidentialClients(database: harness.test.database) }

    /// A client of `method` bound to the fixture's inbox; its id and secret.
    func client(
        _ method: OAuthConfidentialClient.AuthMethod = .clientSecretBasic, scope: String = "mail.read mail.send",
        inboxes: [String]? = nil, introspection: Bool = false, jwks: String? = nil, jwksURI: String? = nil
    ) async throws -> (id: String, secret: String?) {
        let made = try await clients.create(
            .init(
                name: "agent", authMethod: method, permissions: try #require(MailPermissions(scope: scope)),
                inboxes: inboxes ?? [inbox], introspection: introspection, jwks: jwks, jwksURI: jwksURI),
            now: harness.clock.now)
        return (made.client.clientID, made.secret)
    }

    static func basic(_ id: String, _ secret: String) -> (String, String) {
        ("Authorization", "Basic " + Base64.encode(Array("\(id):\(secret)".utf8)))
    }

    /// `grant_type=client_credentials` for `resource` with `extra` fields and `headers`.
    func token(_ extra: [(String, String)], headers: [(String, String)] = [], resource: String? = nil) async
        -> HTTPResponse
    {
        var form = [("grant_type", "client_credentials")]
        if let resource = resource ?? Optional(mcp), !resource.isEmpty { form.append(("resource", resource)) }
        return await harness.send(.POST, "/oauth/token", form: form + extra, headers: headers)
    }

    /// Introspects `token` as the introspecting client `id`.
    func introspect(_ token: String, as client: (id: String, secret: String?)) async -> HTTPResponse {
        await harness.send(
            .POST, "/oauth/introspect", form: [("token", token)],
            headers: [Self.basic(client.id, client.secret ?? "")])
    }

    /// How many client credentials grants were written.
    func grantCount() async throws -> Int {
        try await harness.test.database.read { connection in
            Int(try connection.query("SELECT COUNT(*) AS n FROM oauth_client_grants").first?.int("n") ?? -1)
        }
    }
}

/// The JWKS documents a test publishes, counting fetches.
final class KeyDocuments: OAuthDocumentFetching, @unchecked Sendable {
    // Written before the requests that read it, from the test's one task.
    var body: String
    private(set) var fetches = 0

    init(_ body: String) { self.body = body }

    func document(at url: String) async -> OAuthFetchedDocument? {
        fetches += 1
        return OAuthFetchedDocument(body: Array(body.utf8), cacheControl: nil)
    }
}

@Suite("OAuth client credentials grant (RFC 6749 4.4, RFC 7523, MCP's oauth-client-credentials)")
struct OAuthClientCredentialsTests {
    @Test(
        "client_secret_basic and client_secret_post buy a token whose sub is the client; no refresh token; one audit line",
        arguments: StorageBackend.allCases)
    func secrets(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let basic = try await fixture.client()
        let response = await fixture.token([], headers: [ConfidentialFixture.basic(basic.id, try #require(basic.secret))])
        #expect(response.status == .ok)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try #require(OAuthHarness.json(response))
        #expect(body["refresh_token"] == nil)
        #expect(body["scope"]?.stringValue == "mail.read mail.send")
        #expect(body["expires_in"]?.intValue == 900)
        let token = try #require(body["access_token"]?.stringValue)
        let claims = try OAuthAccessClaims.verify(
            token, keys: fixture.harness.keys, issuer: issuer, lifetime: 900, now: fixture.harness.clock.now)
        #expect(claims.ownerID == basic.id && claims.clientID == basic.id && claims.resource == fixture.mcp)
        let record = try #require(try await fixture.harness.service.grants.record(jti: claims.jti))
        #expect(record.isLive(at: fixture.harness.clock.now) && record.matches(claims))
        #expect(record.clientInboxIDs == [fixture.inbox])

        let post = try await fixture.client(.clientSecretPost, scope: "mail.read")
        let narrowed = await fixture.token([("client_id", post.id), ("client_secret", try #require(post.secret))])
        #expect(OAuthHarness.json(narrowed)?["scope"]?.stringValue == "mail.read")

        let events = try await fixture.harness.auditEvents().filter { $0.action == .clientCredentialsGranted }
        #expect(events.map(\.actorID) == [basic.id, post.id])
        #expect(events.first?.target == claims.jti)
        #expect(try await fixture.grantCount() == 2)
    }

    @Test("refusals carry the RFC's codes and mint nothing", arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let basic = try await fixture.client(scope: "mail.read")
        let secret = try #require(basic.secret)
        let post = try await fixture.client(.clientSecretPost)
        let registered = try await fixture.harness.registerClient(method: "client_secret_post")
        let other = try await fixture.harness.owner("other@example.com", inbox: "other-inbox")
        let good = ConfidentialFixture.basic(basic.id, secret)
        let cases: [(String, [(String, String)], [(String, String)], String?, String, HTTPStatus)] = [
            ("wrong secret", [], [ConfidentialFixture.basic(basic.id, secret + "x")], nil, "invalid_client", .unauthorized),
            ("unknown client", [], [ConfidentialFixture.basic("nobody", secret)], nil, "invalid_client", .unauthorized),
            ("empty secret", [], [ConfidentialFixture.basic(basic.id, "")], nil, "invalid_client", .unauthorized),
            ("basic client over post", [("client_id", basic.id), ("client_secret", secret)], [], nil, "invalid_client",
                .badRequest),
            ("post client over basic", [], [ConfidentialFixture.basic(post.id, post.secret ?? "")], nil, "invalid_client",
                .unauthorized),
            ("two methods", [("client_secret", secret)], [good], nil, "invalid_client", .unauthorized),
            ("scope wider than the client's", [("scope", "mail.read mail.send")], [good], nil, "invalid_scope",
                .badRequest),
            ("unknown scope", [("scope", "mail.delete")], [good], nil, "invalid_scope", .badRequest),
            ("no resource", [], [good], "", "invalid_request", .badRequest),
            ("another server's resource", [], [good], "https://evil.example/mcp", "invalid_target", .badRequest),
            ("a resource with a trailing slash", [], [good], issuer + "/mcp/", "invalid_target", .badRequest),
            ("an inbox the client is not bound to", [], [good], "urn:atomicmail:agent:" + other.inbox,
                "invalid_target", .badRequest),
            ("a registered client", [("client_id", registered.id), ("client_secret", registered.secret ?? "")], [],
                nil, "unauthorized_client", .badRequest),
            ("a confidential client's code grant", [("grant_type", "authorization_code")], [good], nil,
                "unauthorized_client", .badRequest),
        ]
        for (name, form, headers, resource, code, status) in cases {
            var fields = form
            if let index = fields.firstIndex(where: { $0.0 == "grant_type" }) {
                // The request's own grant_type goes first: a form's first value wins.
                let grant = fields.remove(at: index)
                let response = await fixture.harness.send(
                    .POST, "/oauth/token", form: [grant] + fields, headers: headers)
                #expect(OAuthHarness.error(response) == code, "\(name)")
                continue
            }
            let response = await fixture.token(fields, headers: headers, resource: resource)
            #expect(OAuthHarness.error(response) == code, "\(name)")
            #expect(response.status == status, "\(name)")
            if status == .unauthorized { #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true) }
        }
        #expect(try await fixture.grantCount() == 0)
        // The inbox the client is bound to is a resource it may ask for.
        let bound = await fixture.token([], headers: [good], resource: "urn:atomicmail:agent:" + fixture.inbox)
        #expect(bound.status == .ok)
    }

    @Test(
        "private_key_jwt: an inline key signs in without client_id; a replayed jti, another audience, an expired assertion and an unknown kid are invalid_client",
        arguments: StorageBackend.allCases)
    func privateKeyJWT(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let signer = try OAuthClientAssertionTests.Signer()
        let client = try await fixture.client(.privateKeyJWT, jwks: signer.jwks)
        #expect(client.secret == nil)
        let now = fixture.harness.clock.now
        func assertion(_ token: String, id: String? = nil) async -> HTTPResponse {
            var form = [("client_assertion_type", OAuthClientCredential.jwtBearerType), ("client_assertion", token)]
            if let id { form.append(("client_id", id)) }
            return await fixture.token(form)
        }
        let first = try signer.assertion(client.id, now: now, ["aud": .string(issuer)])
        #expect(await assertion(first).status == .ok)
        let replay = await assertion(first)
        #expect(OAuthHarness.error(replay) == "invalid_client")
        #expect(replay.status == .badRequest)
        #expect(await assertion(try signer.assertion(client.id, now: now), id: client.id).status == .ok)
        let refused: [(String, String)] = [
            ("another audience", try signer.assertion(client.id, now: now, ["aud": "https://other.example/token"])),
            ("expired", try signer.assertion(client.id, now: now, ["exp": .int(now - 60), "iat": .int(now - 120)])),
            ("no exp", try signer.assertion(client.id, now: now, ["exp": nil])),
            ("a long-lived assertion", try signer.assertion(client.id, now: now, ["exp": .int(now + 7_200)])),
            ("unknown kid", try OAuthClientAssertionTests.Signer(kid: "nope").assertion(client.id, now: now)),
            ("another key under its kid", try OAuthClientAssertionTests.Signer().assertion(client.id, now: now)),
            ("iss another client", try signer.assertion(client.id, now: now, ["iss": "someone"])),
            ("sub naming no client", try signer.assertion("someone", now: now)),
        ]
        for (name, token) in refused {
            #expect(OAuthHarness.error(await assertion(token)) == "invalid_client", "\(name)")
        }
        // A secret client cannot authenticate with an assertion, nor the key client with a secret.
        let basic = try await fixture.client()
        #expect(OAuthHarness.error(await assertion(try signer.assertion(basic.id, now: now))) == "invalid_client")
        #expect(
            OAuthHarness.error(await fixture.token([], headers: [ConfidentialFixture.basic(client.id, "x")]))
                == "invalid_client")
        #expect(try await fixture.grantCount() == 2)
    }

    @Test("a jwks_uri is fetched once, again for an unknown kid at most once a minute", arguments: [StorageBackend.sqlite])
    func jwksURI(_ backend: StorageBackend) async throws {
        let signer = try OAuthClientAssertionTests.Signer(kid: "k1")
        let documents = KeyDocuments(signer.jwks)
        let fixture = try await ConfidentialFixture(backend, keyDocuments: documents)
        let client = try await fixture.client(.privateKeyJWT, jwksURI: "https://agent.example/jwks.json")
        let form = { (token: String) in
            [("client_assertion_type", OAuthClientCredential.jwtBearerType), ("client_assertion", token)]
        }
        let now = fixture.harness.clock.now
        #expect(await fixture.token(form(try signer.assertion(client.id, now: now))).status == .ok)
        #expect(await fixture.token(form(try signer.assertion(client.id, now: now))).status == .ok)
        #expect(documents.fetches == 1)
        // The client rotates to k2: the first unknown kid fetches again; a flood of made-up kids does not.
        let rotated = try OAuthClientAssertionTests.Signer(kid: "k2")
        documents.body = rotated.jwks
        fixture.harness.clock.advance(61)
        #expect(await fixture.token(form(try rotated.assertion(client.id, now: now + 61))).status == .ok)
        #expect(documents.fetches == 2)
        for _ in 0..<5 {
            let made = try OAuthClientAssertionTests.Signer(kid: "k3").assertion(client.id, now: now + 61)
            #expect(OAuthHarness.error(await fixture.token(form(made))) == "invalid_client")
        }
        #expect(documents.fetches == 2)
    }

    @Test("a rotated secret keeps working for the overlap, then only the new one", arguments: [StorageBackend.sqlite])
    func rotation(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let client = try await fixture.client()
        let old = try #require(client.secret)
        let new = try #require(
            try await fixture.clients.rotateSecret(clientID: client.id, overlap: 600, now: fixture.harness.clock.now))
        #expect(await fixture.token([], headers: [ConfidentialFixture.basic(client.id, old)]).status == .ok)
        #expect(await fixture.token([], headers: [ConfidentialFixture.basic(client.id, new)]).status == .ok)
        fixture.harness.clock.advance(600)
        #expect(await fixture.token([], headers: [ConfidentialFixture.basic(client.id, old)]).status == .unauthorized)
        #expect(await fixture.token([], headers: [ConfidentialFixture.basic(client.id, new)]).status == .ok)
        #expect(try await fixture.clients.delete(clientID: client.id))
        #expect(await fixture.token([], headers: [ConfidentialFixture.basic(client.id, new)]).status == .unauthorized)
    }

    @Test("the metadata lists the grant, the methods and introspection only when on")
    func metadata() async throws {
        for (credentials, introspection) in [(true, true), (false, false), (true, false), (false, true)] {
            let harness = try OAuthHarness(.sqlite) {
                $0.clientCredentials = credentials
                $0.introspection = introspection
                $0.tokenExchange = false
            }
            let body = try #require(OAuthHarness.json(await harness.send(.GET, "/.well-known/oauth-authorization-server")))
            let grants = body["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let methods = body["token_endpoint_auth_methods_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(grants.contains("client_credentials") == credentials)
            #expect(methods.contains("private_key_jwt") == (credentials || introspection))
            #expect(methods.contains("client_secret_basic") == (credentials || introspection))
            #expect((body["introspection_endpoint"]?.stringValue == issuer + "/oauth/introspect") == introspection)
            #expect((body["token_endpoint_auth_signing_alg_values_supported"] != nil) == (credentials || introspection))
            let introspect = await harness.send(.POST, "/oauth/introspect", form: [("token", "x")])
            #expect((introspect.status == .notFound) == !introspection)
            if !credentials {
                let client = try await harness.registerClient(method: "client_secret_post")
                let response = await harness.send(
                    .POST, "/oauth/token",
                    form: [("grant_type", "client_credentials"), ("client_id", client.id),
                        ("client_secret", client.secret ?? "")])
                #expect(OAuthHarness.error(response) == "unsupported_grant_type")
            }
        }
    }
}

@Suite("Client credentials: a volley of adversarial requests mints nothing")
struct OAuthClientCredentialsAdversarialTests {
    @Test("over 200 refused requests, each with the RFC's code, leave no grant", arguments: StorageBackend.allCases)
    func volley(_ backend: StorageBackend) async throws {
        let fixture = try await ConfidentialFixture(backend)
        let reader = try await fixture.client(scope: "mail.read")
        let secret = try #require(reader.secret)
        let post = try await fixture.client(.clientSecretPost, scope: "mail.read")
        let signer = try OAuthClientAssertionTests.Signer()
        let keyed = try await fixture.client(.privateKeyJWT, scope: "mail.read", jwks: signer.jwks)
        let registered = try await fixture.harness.registerClient(method: "client_secret_post")
        let other = try await fixture.harness.owner("volley@example.com", inbox: "volley-inbox")
        let now = fixture.harness.clock.now
        let good = ConfidentialFixture.basic(reader.id, secret)
        var refusals: [(String, [(String, String)], [(String, String)], String?, String)] = []
        for i in 0..<25 {
            let wrong = OAuthDigest.newToken()
            refusals.append(("random secret \(i)", [], [ConfidentialFixture.basic(reader.id, wrong)], nil, "invalid_client"))
            refusals.append((
                "random post secret \(i)", [("client_id", post.id), ("client_secret", wrong)], [], nil, "invalid_client"
            ))
            refusals.append((
                "truncated secret \(i)", [], [ConfidentialFixture.basic(reader.id, String(secret.prefix(i)))], nil,
                "invalid_client"
            ))
            refusals.append((
                "unknown client \(i)", [], [ConfidentialFixture.basic(SecureRandom.identifier(byteCount: 16), secret)],
                nil, "invalid_client"
            ))
        }
        let resources = [
            "https://evil.example/mcp", issuer + "/mcp/", issuer + "/MCP", issuer + "/jmap?x=1", issuer, issuer + "/",
            "http://127.0.0.1:8081/mcp", "urn:atomicmail:agent:" + other.inbox, "urn:atomicmail:agent:not-a-uuid",
            "urn:atomicmail:agent:" + fixture.inbox.uppercased() + "x", issuer + "/mcp#f", " " + issuer + "/mcp",
        ]
        for resource in resources {
            refusals.append(("resource \(resource)", [], [good], resource, "invalid_target"))
        }
        for scope in ["mail.send", "mail.read mail.send", "mail.delete", "openid", "mail.read admin", "MAIL.READ"] {
            refusals.append(("scope \(scope)", [("scope", scope)], [good], nil, "invalid_scope"))
        }
        let claims: [[String: JSONValue?]] = [
            ["aud": "https://other.example/token"], ["aud": .string(issuer + "/oauth/revoke/x")], ["exp": nil],
            ["exp": .int(now - 120)], ["exp": .int(now + 86_400)], ["iss": "mallory"], ["sub": "mallory"], ["jti": nil],
            ["iat": .int(now + 600)], ["nbf": .int(now + 600)],
        ]
        for (index, change) in claims.enumerated() {
            for copy in 0..<3 {
                let token = try signer.assertion(keyed.id, now: now, change)
                refusals.append((
                    "assertion \(index).\(copy)",
                    [("client_assertion_type", OAuthClientCredential.jwtBearerType), ("client_assertion", token)], [],
                    nil, "invalid_client"
                ))
            }
        }
        for _ in 0..<10 {
            let stranger = try OAuthClientAssertionTests.Signer().assertion(keyed.id, now: now)
            refusals.append((
                "a stranger's key",
                [("client_assertion_type", OAuthClientCredential.jwtBearerType), ("client_assertion", stranger)], [],
                nil, "invalid_client"
            ))
        }
        for _ in 0..<10 {
            refusals.append((
                "registered client", [("client_id", registered.id), ("client_secret", registered.secret ?? "")], [],
                nil, "unauthorized_client"
            ))
        }
        // One good assertion mints; its twenty replays mint nothing.
        let used = try signer.assertion(keyed.id, now: now)
        let assertion = [("client_assertion_type", OAuthClientCredential.jwtBearerType), ("client_assertion", used)]
        #expect(await fixture.token(assertion).status == .ok)
        for i in 0..<20 { refusals.append(("replay \(i)", assertion, [], nil, "invalid_client")) }

        var refused = 0
        for (name, form, headers, resource, code) in refusals {
            let response = await fixture.token(form, headers: headers, resource: resource)
            #expect(OAuthHarness.error(response) == code, "\(name)")
            if OAuthHarness.error(response) == code { refused += 1 }
        }
        for grantType in ["authorization_code", "refresh_token", "password", "implicit", "urn:ietf:params:oauth:grant-type:device_code"] {
            for _ in 0..<4 {
                let response = await fixture.harness.send(
                    .POST, "/oauth/token", form: [("grant_type", grantType), ("resource", fixture.mcp)], headers: [good])
                // The device-code grant is served (to registered clients): a confidential client may not use it.
                let expected = ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"]
                    .contains(grantType)
                    ? "unauthorized_client" : "unsupported_grant_type"
                #expect(OAuthHarness.error(response) == expected, "\(grantType)")
                if OAuthHarness.error(response) == expected { refused += 1 }
            }
        }
        #expect(refused >= 200 && refused == refusals.count + 20)
        #expect(try await fixture.grantCount() == 1)
    }
}
