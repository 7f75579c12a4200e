import Fetch
import HTTP1
import JSON
import JWT
import OutboundSocket
import PosternTestSupport
import SignInProviders
import Storage
import Testing

/// A login from its start to a verified identity, against a loopback provider reached through the real fetcher: the
/// transaction is spent by the first callback whatever follows, and every refusal of issue 54's case 3 that the flow
/// itself makes (state, iss, a refused code or verifier, the provider's error, an unknown kid twice) leaves nothing to
/// replay. The same origin plays a GitHub (its OAuth endpoints under `/gh`, its API under `/ghapi`) and a userinfo
/// endpoint.
@Suite("Sign-in flow: begin, callback, code exchange and id_token", .timeLimit(.minutes(1)))
struct SignInFlowTests {
    static let clientID = "postern-client"

    final class Harness: Sendable {
        let origin: TestOrigin
        let test: TestDatabase
        let clock = TestClock()
        let flow: SignInFlow
        var issuer: String { origin.url("") }

        init(
            _ backend: StorageBackend, issParameter: Bool = false, userinfo: Bool = false, logout: Bool = false,
            issuerSuffix: String = ""
        ) throws {
            origin = try TestOrigin()
            test = try backend.makeDatabase()
            origin.set(
                "/jwks",
                body: String(
                    decoding: JSONValue.object([("keys", .array([TestSigner.rs256.jwk]))]).serialize(), as: UTF8.self))
            var configuration = SignInProvidersConfiguration()
            configuration.providers = [
                SignInProvider(
                    name: "corp", kind: .oidc(issuer: origin.url("") + issuerSuffix), clientID: SignInFlowTests.clientID,
                    clientSecret: .init("secret"), displayName: "Corp", scopes: ["openid", "email"],
                    surfaces: [.owners], allowPrivateNetwork: true, logout: logout),
                SignInProvider(
                    name: "gh", kind: .github(webURL: origin.url("/gh"), apiURL: origin.url("/ghapi")),
                    clientID: "gh-client", clientSecret: .init("gh-secret"), displayName: "GitHub",
                    scopes: SignInProvidersConfiguration.defaultGitHubScopes, surfaces: [.owners],
                    allowPrivateNetwork: true),
            ]
            var fetch = FetchConfiguration(policy: AddressPolicy(allowPrivate: true))
            fetch.maxBodyBytes = 64 * 1024
            let fetcher = try Fetcher(configuration: fetch)
            let clock = clock
            flow = SignInFlow(
                configuration: configuration, publicURL: "https://postern.example/",
                transactions: SignInTransactionStore(database: test.database, clock: { clock.now }),
                transport: { _ in fetcher }, clock: { clock.now })
            publishDiscovery(issParameter: issParameter, userinfo: userinfo)
        }

        deinit { origin.stop() }

        /// Serves the discovery document: promising RFC 9207's `iss` or not, with a userinfo endpoint or not.
        func publishDiscovery(issParameter: Bool, userinfo: Bool = false) {
            var discovery: [(String, JSONValue)] = [
                ("issuer", .string(origin.url(""))), ("authorization_endpoint", .string(origin.url("/authorize"))),
                ("token_endpoint", .string(origin.url("/token"))), ("jwks_uri", .string(origin.url("/jwks"))),
                ("code_challenge_methods_supported", ["S256"]),
            ]
            if issParameter { discovery.append(("authorization_response_iss_parameter_supported", true)) }
            if userinfo { discovery.append(("userinfo_endpoint", .string(origin.url("/userinfo")))) }
            discovery.append(("end_session_endpoint", .string(origin.url("/logout?realm=staff"))))
            origin.set(
                "/.well-known/openid-configuration",
                body: String(decoding: JSONValue.object(discovery).serialize(), as: UTF8.self))
        }

        /// How many times the discovery document was fetched.
        var discoveryFetches: Int {
            origin.receivedRequests.filter { $0.hasPrefix("GET /.well-known/openid-configuration ") }.count
        }

        /// Begins a login; returns the authorization URL's query and the browser token.
        func begin(_ provider: String = "corp") async throws -> (query: [String: String], browser: String) {
            let (url, browser) = try await flow.begin(
                provider: provider, surface: .owners, account: nil, returnTo: "/owner")
            let query = try #require(url.split(separator: "?", maxSplits: 1).last)
            var items: [String: String] = [:]
            for (name, value) in HTTPRequest.items(ofQuery: String(query)) { items[name] = value }
            return (items, browser)
        }

        /// The token endpoint answers an id_token for `nonce` (or `body` as it is), signed with the key `kid`
        /// names, with alice's verified email or none.
        func answerToken(nonce: String?, body: String? = nil, email: Bool = true, kid: String = "rsa1") throws {
            var claims: [(String, JSONValue)] = [
                ("iss", .string(issuer)), ("sub", "alice"), ("aud", .string(SignInFlowTests.clientID)),
                ("exp", .int(clock.now + 300)), ("iat", .int(clock.now)), ("nonce", .string(nonce ?? "")),
            ]
            if email { claims += [("email", "alice@example.com"), ("email_verified", true)] }
            let token = try TestSigner.rs256.token(kid: kid, claims: .object(claims))
            origin.set(
                "/token",
                body: body ?? "{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"id_token\":\"\(token)\"}")
        }

        func finish(_ items: [(String, String)], browser: String?) async throws -> CompletedSignIn {
            try await flow.finish(query: items.map { (name: $0.0, value: $0.1) }, browser: browser)
        }
    }

    @Test("a callback finishes once, in the browser that began it, with the id_token's identity", arguments: StorageBackend.allCases)
    func finishesOnce(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let (query, browser) = try await harness.begin()
        #expect(query["code_challenge_method"] == "S256" && query["redirect_uri"] == "https://postern.example/oidc/callback")
        try harness.answerToken(nonce: query["nonce"])
        let state = try #require(query["state"])
        // Another browser's cookie opens nothing, and spends the state.
        let (other, otherBrowser) = try await harness.begin()
        await #expect(throws: SignInRefusal.noTransaction) {
            try await harness.finish([("code", "c"), ("state", other["state"] ?? "")], browser: browser)
        }
        await #expect(throws: SignInRefusal.noTransaction) {
            try await harness.finish([("code", "c"), ("state", other["state"] ?? "")], browser: otherBrowser)
        }
        let completed = try await harness.finish([("code", "c"), ("state", state)], browser: browser)
        #expect(completed.identity.subject == "alice" && completed.identity.issuer == harness.issuer)
        #expect(completed.identity.email == "alice@example.com" && completed.identity.emailVerified)
        #expect(completed.transaction.returnTo == "/owner" && completed.provider.name == "corp")
        await #expect(throws: SignInRefusal.noTransaction) {
            try await harness.finish([("code", "c"), ("state", state)], browser: browser)
        }
        await #expect(throws: SignInRefusal.noTransaction) {
            try await harness.finish([("code", "c"), ("state", state)], browser: nil)
        }
        await #expect(throws: SignInRefusal.malformedCallback) {
            try await harness.finish([("code", "c")], browser: browser)
        }
        await #expect(throws: SignInRefusal.malformedCallback) {
            try await harness.finish([("code", "c"), ("state", state), ("state", state)], browser: browser)
        }
        withExtendedLifetime(harness) {}
    }

    @Test(
        "a refused code or verifier, the provider's error, another nonce or iss: refused, the state spent",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        func refused(
            _ expected: (SignInRefusal) -> Bool, answer: (nonce: String?, body: String?)?,
            extra: [(String, String)] = [], code: Bool = true
        ) async throws {
            let (query, browser) = try await harness.begin()
            if let answer { try harness.answerToken(nonce: answer.nonce ?? query["nonce"], body: answer.body) }
            let state = try #require(query["state"])
            let items = (code ? [("code", "c")] : []) + [("state", state)] + extra
            let refusal = await #expect(throws: SignInRefusal.self) { try await harness.finish(items, browser: browser) }
            #expect(refusal.map(expected) == true, "\(String(describing: refusal))")
            try harness.answerToken(nonce: query["nonce"])
            await #expect(throws: SignInRefusal.noTransaction) {
                try await harness.finish([("code", "c"), ("state", state)], browser: browser)
            }
        }
        // A code or code_verifier the provider refuses.
        try await refused({ $0 == .token(.provider("invalid_grant")) }, answer: (nil, "{\"error\":\"invalid_grant\"}"))
        try await refused({ $0 == .token(.malformed) }, answer: (nil, "{\"access_token\":\"at\"}"))
        try await refused(
            { $0 == .noIDToken }, answer: (nil, "{\"access_token\":\"at\",\"token_type\":\"Bearer\"}"))
        try await refused(
            {
                if case .provider(.token(let error)) = $0 { return error.code == .wrongNonce }
                return false
            }, answer: ("another-nonce", nil))
        try await refused({ $0 == .issuerParameter }, answer: (nil, nil), extra: [("iss", "https://evil.example")])
        try await refused(
            { $0 == .providerRefused("access_denied") }, answer: nil, extra: [("error", "access_denied")], code: false)
        withExtendedLifetime(harness) {}
    }

    @Test(
        "the provider's access_denied, with or without a state: the person cancelled, the audit reason names the error",
        arguments: [StorageBackend.sqlite])
    func cancelledAtTheProvider(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let (query, browser) = try await harness.begin()
        for items in [[("error", "access_denied"), ("state", query["state"] ?? "")], [("error", "access_denied")]] {
            let refusal = await #expect(throws: SignInRefusal.self) { try await harness.finish(items, browser: browser) }
            #expect(refusal == .providerRefused("access_denied"), "\(items)")
            #expect(refusal?.reason == "provider_refused:access_denied")
            #expect(refusal?.words == SignInMessage.cancelled)
        }
        // Another error is a failed sign-in, and its code is kept to a code's characters in the audit.
        let other = SignInRefusal.providerRefused("server_error\n<b>x</b>")
        #expect(other.words == SignInMessage.failed && other.reason == "provider_refused:server_errorbxb")
        #expect(SignInRefusal.noTransaction.words == SignInMessage.failed)
    }

    @Test("an issuer configured with a trailing slash: discovery names the issuer the provider states; misconfigured")
    func trailingSlashIssuer() async throws {
        let harness = try Harness(.sqlite, issuerSuffix: "/")
        let mismatch = ProviderError.discovery(DiscoveryError(.issuerMismatch, member: "issuer", found: harness.issuer))
        let states = await harness.flow.discoveryStates()
        #expect(states.first?.state.flatMap { try? $0.get() } == nil)
        if case .failure(let error)? = states.first?.state { #expect(error == mismatch) } else { Issue.record("\(states)") }
        await #expect(throws: SignInFlow.StartError.provider(mismatch)) {
            try await harness.flow.begin(provider: "corp", surface: .owners, account: nil, returnTo: "/owner")
        }
        #expect(SignInMessage.unavailable(mismatch) == SignInMessage.misconfigured)
        #expect(SignInMessage.unavailable(.status(503, document: "discovery")) == SignInMessage.unreachable)
        #expect(
            "\(DiscoveryError(.issuerMismatch, member: "issuer", found: harness.issuer))"
                == "issuerMismatch: the provider's document states issuer \"\(harness.issuer)\"")
    }

    @Test("a provider that promises RFC 9207's iss must send it", arguments: [StorageBackend.sqlite])
    func issPromised(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend, issParameter: true)
        let (query, browser) = try await harness.begin()
        try harness.answerToken(nonce: query["nonce"])
        await #expect(throws: SignInRefusal.issuerParameter) {
            try await harness.finish([("code", "c"), ("state", query["state"] ?? "")], browser: browser)
        }
        let (again, againBrowser) = try await harness.begin()
        try harness.answerToken(nonce: again["nonce"])
        let completed = try await harness.finish(
            [("code", "c"), ("state", again["state"] ?? ""), ("iss", harness.issuer)], browser: againBrowser)
        #expect(completed.identity.subject == "alice")
    }

    @Test(
        "a provider that starts promising RFC 9207's iss is held to it within a minute, not an hour; one that stops is read again before a callback without iss is refused (issue 66)",
        arguments: [StorageBackend.sqlite])
    func issPromiseChanges(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let start = harness.clock.now
        func callback(iss: String?) async throws -> CompletedSignIn {
            let (query, browser) = try await harness.begin()
            try harness.answerToken(nonce: query["nonce"])
            return try await harness.finish(
                [("code", "c"), ("state", query["state"] ?? "")] + (iss.map { [("iss", $0)] } ?? []), browser: browser)
        }
        // Not promised: a callback without iss is taken.
        #expect(try await callback(iss: nil).identity.subject == "alice")
        let fetched = harness.discoveryFetches
        // The provider starts promising it. Within the minute the copy kept stands (a callback cannot make Postern
        // fetch without end); past it, a callback without iss, a mix-up attacker's, reads the document again and is
        // refused, well within the hour the document is otherwise kept.
        harness.publishDiscovery(issParameter: true)
        #expect(try await callback(iss: nil).identity.subject == "alice")
        #expect(harness.discoveryFetches == fetched)
        harness.clock.advance(ProviderKeys.refetchInterval)
        await #expect(throws: SignInRefusal.issuerParameter) { try await callback(iss: nil) }
        #expect(harness.discoveryFetches == fetched + 1)
        #expect(try await callback(iss: harness.issuer).identity.subject == "alice")
        // It stops promising it: a callback without iss is refused while the kept copy is fresh, then read again.
        harness.publishDiscovery(issParameter: false)
        await #expect(throws: SignInRefusal.issuerParameter) { try await callback(iss: nil) }
        harness.clock.advance(ProviderKeys.refetchInterval)
        #expect(try await callback(iss: nil).identity.subject == "alice")
        #expect(harness.discoveryFetches == fetched + 2)
        #expect(harness.clock.now - start < ProviderKeys.documentLifetime)
    }

    @Test("begin refuses a provider that does not sign into the surface, and a return path off the site")
    func beginRefusals() async throws {
        let harness = try Harness(.sqlite)
        await #expect(throws: SignInFlow.StartError.unknownProvider) {
            try await harness.flow.begin(provider: "corp", surface: .pro, account: nil, returnTo: "/inbox")
        }
        await #expect(throws: SignInFlow.StartError.unknownProvider) {
            try await harness.flow.begin(provider: "other", surface: .owners, account: nil, returnTo: "/owner")
        }
        await #expect(throws: SignInFlow.StartError.returnPathNotLocal) {
            try await harness.flow.begin(provider: "corp", surface: .owners, account: nil, returnTo: "//evil.example")
        }
        #expect(
            harness.flow.providers(for: .owners).map(\.name) == ["corp", "gh"]
                && harness.flow.providers(for: .pro).isEmpty)
    }

    /// GitHub's answers: the token endpoint's, `GET /user`'s and `GET /user/emails`' (the primary private, and
    /// verified or not).
    static func answerGitHub(_ harness: Harness, primaryVerified: Bool, userStatus: Int = 200) {
        harness.origin.set(
            "/gh/login/oauth/access_token",
            body: #"{"access_token":"gho_token1","token_type":"bearer","scope":"read:user,user:email"}"#)
        harness.origin.set(
            "/ghapi/user", status: userStatus,
            body: #"{"login":"octocat","id":583231,"name":"The Octocat","email":null}"#)
        harness.origin.set(
            "/ghapi/user/emails",
            body: """
                [{"email":"octo@users.noreply.github.com","primary":false,"verified":true,"visibility":null},\
                {"email":"octo@example.com","primary":true,"verified":\(primaryVerified),"visibility":"private"}]
                """)
    }

    /// Its authorize URL with PKCE and no nonce, the code exchanged with the secret in the body, then `/user` and
    /// `/user/emails` with the token and GitHub's headers.
    @Test("GitHub: code exchange, then its user and primary email", arguments: StorageBackend.allCases)
    func gitHub(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let (url, _) = try await harness.flow.begin(provider: "gh", surface: .owners, account: nil, returnTo: "/owner")
        #expect(url.hasPrefix(harness.origin.url("/gh/login/oauth/authorize?")))
        let (query, browser) = try await harness.begin("gh")
        #expect(query["code_challenge_method"] == "S256" && query["nonce"] == nil && query["client_id"] == "gh-client")
        #expect(query["scope"] == "read:user user:email")
        let state = try #require(query["state"])
        Self.answerGitHub(harness, primaryVerified: true)
        let completed = try await harness.finish([("code", "gh-code"), ("state", state)], browser: browser)
        #expect(completed.provider.name == "gh")
        #expect(
            completed.identity
                == ProviderIdentity(
                    issuer: harness.origin.url("/gh"), subject: "583231", email: "octo@example.com",
                    emailVerified: true, name: "The Octocat"))
        let requests = harness.origin.receivedRequests
        let exchange = try #require(requests.first { $0.hasPrefix("POST /gh/login/oauth/access_token ") })
        #expect(exchange.contains("\r\nAccept: application/json\r\n") && !exchange.contains("Authorization:"))
        for path in ["/ghapi/user ", "/ghapi/user/emails "] {
            let call = try #require(requests.first { $0.hasPrefix("GET " + path) })
            #expect(call.contains("\r\nAuthorization: Bearer gho_token1\r\n"))
            #expect(call.contains("\r\nAccept: application/vnd.github+json\r\n"))
            #expect(call.contains("\r\nUser-Agent: ") && call.contains("\r\nX-GitHub-Api-Version: 2022-11-28\r\n"))
        }
        // The state is spent.
        await #expect(throws: SignInRefusal.noTransaction) {
            try await harness.finish([("code", "gh-code"), ("state", state)], browser: browser)
        }

        // An unverified primary address is said so (the linking rules then refuse sign-up and links by email).
        let (again, againBrowser) = try await harness.begin("gh")
        Self.answerGitHub(harness, primaryVerified: false)
        let unverified = try await harness.finish(
            [("code", "c"), ("state", again["state"] ?? "")], browser: againBrowser)
        #expect(unverified.identity.email == "octo@example.com" && !unverified.identity.emailVerified)

        // A refused token, and a /user answer that is not 200: refused.
        let (third, thirdBrowser) = try await harness.begin("gh")
        Self.answerGitHub(harness, primaryVerified: true, userStatus: 401)
        await #expect(throws: SignInRefusal.provider(.status(401, document: "user"))) {
            try await harness.finish([("code", "c"), ("state", third["state"] ?? "")], browser: thirdBrowser)
        }
        let (fourth, fourthBrowser) = try await harness.begin("gh")
        harness.origin.set(
            "/gh/login/oauth/access_token",
            body: #"{"error":"bad_verification_code","error_description":"The code passed is incorrect or expired."}"#)
        await #expect(throws: SignInRefusal.token(.provider("bad_verification_code"))) {
            try await harness.finish([("code", "c"), ("state", fourth["state"] ?? "")], browser: fourthBrowser)
        }
        withExtendedLifetime(harness) {}
    }

    @Test(
        "an id_token without email takes userinfo's, only for the same sub; one with an email fetches no userinfo",
        arguments: StorageBackend.allCases)
    func userinfo(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend, userinfo: true)
        func signIn(email: Bool, userinfo: String, status: Int = 200) async throws -> CompletedSignIn {
            let (query, browser) = try await harness.begin()
            try harness.answerToken(nonce: query["nonce"], email: email)
            harness.origin.set("/userinfo", status: status, body: userinfo)
            return try await harness.finish([("code", "c"), ("state", query["state"] ?? "")], browser: browser)
        }
        let merged = try await signIn(
            email: false, userinfo: #"{"sub":"alice","email":"alice@corp.example","email_verified":true}"#)
        #expect(merged.identity.subject == "alice" && merged.identity.email == "alice@corp.example")
        #expect(merged.identity.emailVerified)
        let call = try #require(harness.origin.receivedRequests.first { $0.hasPrefix("GET /userinfo ") })
        #expect(call.contains("\r\nAuthorization: Bearer at\r\n") && call.contains("\r\nAccept: application/json\r\n"))

        await #expect(throws: SignInRefusal.userDocument(.subjectMismatch)) {
            try await signIn(
                email: false, userinfo: #"{"sub":"mallory","email":"victim@corp.example","email_verified":true}"#)
        }
        await #expect(throws: SignInRefusal.provider(.status(401, document: "userinfo"))) {
            try await signIn(email: false, userinfo: "{}", status: 401)
        }
        let calls = harness.origin.receivedRequests.filter { $0.hasPrefix("GET /userinfo ") }.count
        let withEmail = try await signIn(
            email: true, userinfo: #"{"sub":"alice","email":"other@corp.example","email_verified":true}"#)
        #expect(withEmail.identity.email == "alice@example.com")
        #expect(harness.origin.receivedRequests.filter { $0.hasPrefix("GET /userinfo ") }.count == calls)
        withExtendedLifetime(harness) {}
    }

    @Test("_LOGOUT: the end-session URL with client_id and the public URL, only when on and the provider has one")
    func endSession() async throws {
        let on = try Harness(.sqlite, logout: true)
        #expect(
            await on.flow.endSessionURL(provider: "corp")
                == on.origin.url(
                    "/logout?realm=staff&client_id=postern-client&post_logout_redirect_uri=https%3A%2F%2Fpostern.example%2F"
                ))
        #expect(await on.flow.endSessionURL(provider: "gh") == nil)
        #expect(await on.flow.endSessionURL(provider: "gone") == nil)
        let off = try Harness(.sqlite)
        #expect(await off.flow.endSessionURL(provider: "corp") == nil)
        #expect(!off.origin.receivedRequests.contains { $0.hasPrefix("GET /.well-known/") })
        // Discovery failing now: Postern's own sign-out stands.
        on.origin.set("/.well-known/openid-configuration", status: 500, body: "")
        let cold = try Harness(.sqlite, logout: true)
        cold.origin.set("/.well-known/openid-configuration", status: 500, body: "")
        #expect(await cold.flow.endSessionURL(provider: "corp") == nil)
    }

    /// The JWKS is fetched again once (a minute after the last fetch), both are refused, and no state is left.
    @Test("an unknown kid twice: one more JWKS fetch, refused", arguments: StorageBackend.allCases)
    func unknownKidTwice(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        func jwksFetches() -> Int { harness.origin.receivedRequests.filter { $0.hasPrefix("GET /jwks ") }.count }
        let (query, browser) = try await harness.begin()
        try harness.answerToken(nonce: query["nonce"])
        _ = try await harness.finish([("code", "c"), ("state", query["state"] ?? "")], browser: browser)
        #expect(jwksFetches() == 1)
        harness.clock.advance(ProviderKeys.refetchInterval)
        for expectedFetches in [2, 2] {
            let (query, browser) = try await harness.begin()
            try harness.answerToken(nonce: query["nonce"], kid: "rotated-away")
            let state = query["state"] ?? ""
            await #expect(throws: SignInRefusal.provider(.token(JWTError(.unknownKey, "kid names no published key")))) {
                try await harness.finish([("code", "c"), ("state", state)], browser: browser)
            }
            #expect(jwksFetches() == expectedFetches)
            try harness.answerToken(nonce: query["nonce"])
            await #expect(throws: SignInRefusal.noTransaction) {
                try await harness.finish([("code", "c"), ("state", state)], browser: browser)
            }
        }
        withExtendedLifetime(harness) {}
    }
}
