import HTTP1
import JSON
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Storage
import Testing

@Suite("OAuth dynamic client registration (RFC 7591) and metadata (RFC 8414)")
struct OAuthRegistrationTests {
    @Test("the metadata has exactly the contract's fields, CORS *", arguments: StorageBackend.allCases)
    func metadata(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let response = await harness.send(.GET, "/.well-known/oauth-authorization-server")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        let body = try #require(OAuthHarness.json(response))
        #expect(body["issuer"]?.stringValue == issuer)
        #expect(body["token_endpoint"]?.stringValue == issuer + "/oauth/token")
        #expect(body["jwks_uri"]?.stringValue == issuer + "/.well-known/jwks.json")
        #expect(body["code_challenge_methods_supported"] == .array([.string("S256")]))
        #expect(body["scopes_supported"] == .array([.string("mail.read"), .string("mail.send")]))
        #expect(body["authorization_response_iss_parameter_supported"] == .bool(true))
        #expect(body["token_profiles_supported"] == .array([.string("at+jwt")]))
        let contract = [
            "authorization_endpoint", "authorization_response_iss_parameter_supported",
            "client_id_metadata_document_supported", "code_challenge_methods_supported", "grant_types_supported",
            "issuer", "jwks_uri", "registration_endpoint", "response_types_supported", "revocation_endpoint",
            "scopes_supported", "token_endpoint", "token_endpoint_auth_methods_supported", "token_profiles_supported",
        ]
        // Client credentials, introspection and the device flow (issue 86, on by default) add their own members only.
        #expect(body.objectValue?.map(\.0).sorted() == (contract + [
            "device_authorization_endpoint", "introspection_endpoint", "introspection_endpoint_auth_methods_supported",
            "introspection_endpoint_auth_signing_alg_values_supported", "revocation_endpoint_auth_methods_supported",
            "revocation_endpoint_auth_signing_alg_values_supported",
            "token_endpoint_auth_signing_alg_values_supported",
        ]).sorted())
        let off = try OAuthHarness(backend) {
            $0.clientCredentials = false
            $0.introspection = false
            $0.deviceAuthorization = false
            $0.tokenExchange = false
        }
        let bare = try #require(OAuthHarness.json(await off.send(.GET, "/.well-known/oauth-authorization-server")))
        #expect(bare.objectValue?.map(\.0).sorted() == contract)
        #expect(bare["grant_types_supported"] == .array(["authorization_code", "refresh_token"]))
        #expect(bare["token_endpoint_auth_methods_supported"] == .array(["client_secret_post", "none"]))
        let preflight = await harness.send(.OPTIONS, "/oauth/register")
        #expect(preflight.status == .noContent)
        #expect(preflight.headers["Access-Control-Allow-Headers"]?.contains("Content-Type") == true)
    }

    @Test(
        "an omitted auth method is none and echoed, without a secret; client_secret_post gets one",
        arguments: StorageBackend.allCases)
    func register(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let response = await harness.send(
            .POST, "/oauth/register",
            json: #"{"redirect_uris":["http://127.0.0.1:33418/callback"],"client_name":"MCP","application_type":"native","grant_types":["authorization_code","refresh_token"],"response_types":["code"],"scope":"mail.send mail.read"}"#)
        #expect(response.status == .created)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try #require(OAuthHarness.json(response))
        #expect(body["token_endpoint_auth_method"]?.stringValue == "none")
        #expect(body["client_secret"] == nil)
        #expect(body["client_id_issued_at"]?.intValue == harness.clock.now)
        #expect(body["scope"]?.stringValue == "mail.read mail.send")
        #expect(body["redirect_uris"] == .array([.string("http://127.0.0.1:33418/callback")]))
        let confidential = try await harness.registerClient(method: "client_secret_post")
        #expect(confidential.secret?.utf8.count == 43)
    }

    @Test("bad metadata: invalid_redirect_uri or invalid_client_metadata, 400", arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let cases: [(String, String)] = [
            (#"{}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":[]}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":"https://a.example/cb"}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":["http://app.example/cb"]}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":["https://app.example/cb#frag"]}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":["com.example.app:/cb"]}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":["https://user@app.example/cb"]}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}"#,
             "invalid_client_metadata"),
            (#"{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}"#, "invalid_client_metadata"),
            (#"{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}"#, "invalid_client_metadata"),
            (#"{"redirect_uris":["https://a.example/cb"],"scope":"openid"}"#, "invalid_client_metadata"),
            (#"{"redirect_uris":["https://a.example/cb"],"client_name":7}"#, "invalid_client_metadata"),
            (#"[1]"#, "invalid_client_metadata"),
            (#"not json"#, "invalid_client_metadata"),
            // The one request-body rule: a duplicate key, or nesting past 32, is not a JSON object this server reads.
            (#"{"redirect_uris":["https://a.example/cb"],"redirect_uris":["https://b.example/cb"]}"#,
             "invalid_client_metadata"),
            (#"{"redirect_uris":["https://a.example/cb"],"x":"# + String(repeating: "[", count: 32)
                + String(repeating: "]", count: 32) + "}", "invalid_client_metadata"),
        ]
        for (body, error) in cases {
            let response = await harness.send(.POST, "/oauth/register", json: body)
            #expect(response.status == .badRequest, "\(body)")
            #expect(OAuthHarness.error(response) == error, "\(body)")
        }
    }

    @Test("redirect URIs: https on a DNS name, http only on localhost, 127.0.0.1 or [::1], ports 1 to 65535")
    func redirectRules() {
        for uri in [
            "https://app.example/cb", "https://app.example:8443/cb?x=1", "http://127.0.0.1:9/cb", "http://localhost/cb",
            "http://[::1]:8080/cb", "http://[::1]/cb", "https://xn--bcher-kva.example/cb", "https://a.example:65535/",
            "https://a.example:1/",
        ] {
            #expect(OAuthClientRegistration.redirectURIAllowed(uri), "\(uri)")
        }
        for uri in [
            "http://app.example/cb", "http://127.0.0.1.evil.example/cb", "https:///cb", "https://a.example:99999/",
            "ftp://a.example/", "https://a.example/ cb", "http://localhost:x/", "https://[2001:db8::1]/cb",
            // A host that could end or widen the consent page's CSP, or that no DNS name spells.
            "https://a.example;script-src:/cb", "https://*.example/cb", "https://a%2eexample/cb",
            "https://a.example%2e/cb", "https://-a.example/cb", "https://a..example/cb", "https://a_b.example/cb",
            "https://a.example:0/cb", "https://a.example:65536/cb", "http://127.0.0.1:0/cb", "https://a.example:/cb",
            "http://[::2]/cb", "http://[::1/cb", "http://[::1]x/cb",
        ] {
            #expect(!OAuthClientRegistration.redirectURIAllowed(uri), "\(uri)")
        }
    }

    @Test(
        "registration and metadata documents refuse hosts with ; * %2e and ports 0 or 65536",
        arguments: StorageBackend.allCases)
    func refusedHosts(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let configuration = OAuthConfiguration(issuer: issuer)
        let document = "https://app.example/client.json"
        for uri in [
            "https://a.example;x/cb", "https://*.example/cb", "https://a%2eexample/cb", "https://a.example:0/cb",
            "https://a.example:65536/cb", "http://127.0.0.1:0/cb",
        ] {
            let response = await harness.send(.POST, "/oauth/register", json: #"{"redirect_uris":["\#(uri)"]}"#)
            #expect(response.status == .badRequest, "\(uri)")
            #expect(OAuthHarness.error(response) == "invalid_redirect_uri", "\(uri)")
            let body = #"{"client_id":"\#(document)","redirect_uris":["\#(uri)"]}"#
            #expect(throws: OAuthError.self, "\(uri)") {
                try OAuthClientMetadataDocument.registration(
                    url: document, body: Array(body.utf8), configuration: configuration)
            }
        }
    }

    @Test("registrations are rate-limited per address: 429 with Retry-After", arguments: StorageBackend.allCases)
    func rateLimit(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend) {
            $0.rateLimitsEnabled = true
            $0.registrationsPerHour = 2
        }
        for _ in 0..<2 { _ = try await harness.registerClient() }
        let refused = await harness.send(.POST, "/oauth/register", json: #"{"redirect_uris":["https://a.example/cb"]}"#)
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers["Retry-After"] != nil)
        #expect(OAuthHarness.json(refused)?["error"] != nil)
        harness.clock.advance(1800)
        _ = try await harness.registerClient()
    }

    @Test("a registration with no grant after 24 h is trimmed; a used one stays", arguments: StorageBackend.allCases)
    func trim(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let unused = try await harness.registerClient()
        let used = try await harness.registerClient()
        let owner = try await harness.owner()
        _ = try await harness.code(clientID: used.id, ownerID: owner.id, agentID: owner.inbox)
        harness.clock.advance(86_400)
        let now = harness.clock.now
        #expect(try harness.test.database.writeSync { try OAuthPurge.run($0, now: now) } == 0)
        harness.clock.advance(1)
        let later = harness.clock.now
        #expect(try harness.test.database.writeSync { try OAuthPurge.run($0, now: later) } >= 1)
        let unusedRefresh = await harness.refresh("x", clientID: unused.id)
        #expect(OAuthHarness.error(unusedRefresh) == "invalid_client")
        #expect(OAuthHarness.error(await harness.refresh("x", clientID: used.id)) == "invalid_grant")
    }
}
