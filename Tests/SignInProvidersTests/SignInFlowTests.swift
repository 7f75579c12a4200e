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
/// itself makes (state, iss, a refused code or verifier, the provider's error) leaves nothing to replay.
@Suite("Sign-in flow: begin, callback, code exchange and id_token", .timeLimit(.minutes(1)))
struct SignInFlowTests {
    static let clientID = "postern-client"

    final class Harness: Sendable {
        let origin: TestOrigin
        let test: TestDatabase
        let clock = TestClock()
        let flow: SignInFlow
        var issuer: String { origin.url("") }

        init(_ backend: StorageBackend, issParameter: Bool = false) throws {
            origin = try TestOrigin()
            test = try backend.makeDatabase()
            var discovery: [(String, JSONValue)] = [
                ("issuer", .string(origin.url(""))), ("authorization_endpoint", .string(origin.url("/authorize"))),
                ("token_endpoint", .string(origin.url("/token"))), ("jwks_uri", .string(origin.url("/jwks"))),
                ("code_challenge_methods_supported", ["S256"]),
            ]
            if issParameter { discovery.append(("authorization_response_iss_parameter_supported", true)) }
            origin.set(
                "/.well-known/openid-configuration",
                body: String(decoding: JSONValue.object(discovery).serialize(), as: UTF8.self))
            origin.set(
                "/jwks",
                body: String(
                    decoding: JSONValue.object([("keys", .array([TestSigner.rs256.jwk]))]).serialize(), as: UTF8.self))
            var configuration = SignInProvidersConfiguration()
            configuration.providers = [
                SignInProvider(
                    name: "corp", kind: .oidc(issuer: origin.url("")), clientID: SignInFlowTests.clientID,
                    clientSecret: .init("secret"), displayName: "Corp", scopes: ["openid", "email"],
                    surfaces: [.owners], allowPrivateNetwork: true)
            ]
            var fetch = FetchConfiguration(policy: AddressPolicy(allowPrivate: true))
            fetch.maxBodyBytes = 64 * 1024
            let fetcher = try Fetcher(configuration: fetch)
            let clock = clock
            flow = SignInFlow(
                configuration: configuration, publicURL: "https://postern.example/",
                transactions: SignInTransactionStore(database: test.database, clock: { clock.now }),
                transport: { _ in fetcher }, clock: { clock.now })
        }

        deinit { origin.stop() }

        /// Begins a login; returns the authorization URL's query and the browser token.
        func begin() async throws -> (query: [String: String], browser: String) {
            let (url, browser) = try await flow.begin(
                provider: "corp", surface: .owners, account: nil, returnTo: "/owner")
            let query = try #require(url.split(separator: "?", maxSplits: 1).last)
            var items: [String: String] = [:]
            for (name, value) in HTTPRequest.items(ofQuery: String(query)) { items[name] = value }
            return (items, browser)
        }

        /// The token endpoint answers an id_token for `nonce` (or `body` as it is).
        func answerToken(nonce: String?, body: String? = nil) throws {
            let claims: JSONValue = [
                "iss": .string(issuer), "sub": "alice", "aud": .string(SignInFlowTests.clientID),
                "exp": .int(clock.now + 300), "iat": .int(clock.now), "nonce": .string(nonce ?? ""),
                "email": "alice@example.com", "email_verified": true,
            ]
            let token = try TestSigner.rs256.token(kid: "rsa1", claims: claims)
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
        #expect(harness.flow.providers(for: .owners).map(\.name) == ["corp"] && harness.flow.providers(for: .pro).isEmpty)
    }
}
