import Fetch
import JSON
import JWT
import OutboundSocket
import PosternTestSupport
import Synchronization
import Testing

@testable import SignInProviders

/// A provider's discovery document and JWKS fetched through the real fetcher from a loopback origin, kept, and fetched
/// again for an unknown kid at most once a minute.
@Suite("Provider keys: discovery, JWKS and the rate-limited refetch", .timeLimit(.minutes(1)))
struct ProviderKeysTests {
    static let clientID = "postern-client"
    static let nonce = "nonce-1"

    /// A loopback provider: its discovery document and a JWKS of `keys`, a fetcher allowed onto loopback, a clock.
    final class Provider: Sendable {
        let origin: TestOrigin
        let fetcher: Fetcher
        let clock = TestClock()
        var issuer: String { origin.url("") }

        init(keys: [JSONValue]) throws {
            origin = try TestOrigin()
            var configuration = FetchConfiguration(policy: AddressPolicy(allowPrivate: true))
            configuration.maxBodyBytes = 64 * 1024
            fetcher = try Fetcher(configuration: configuration, resolver: NoLookups())
            publishDiscovery(jwks: "/jwks")
            publish(keys)
        }

        /// Serves the discovery document naming `jwks` as its `jwks_uri`.
        func publishDiscovery(jwks: String) {
            let discovery: JSONValue = [
                "issuer": .string(issuer), "authorization_endpoint": .string(origin.url("/authorize")),
                "token_endpoint": .string(origin.url("/token")), "jwks_uri": .string(origin.url(jwks)),
                "response_types_supported": ["code"], "id_token_signing_alg_values_supported": ["RS256", "EdDSA"],
            ]
            origin.set(
                "/.well-known/openid-configuration", body: String(decoding: discovery.serialize(), as: UTF8.self))
        }

        deinit {
            fetcher.shutdown()
            origin.stop()
        }

        func publish(_ keys: [JSONValue]) {
            origin.set(
                "/jwks", body: String(decoding: JSONValue.object([("keys", .array(keys))]).serialize(), as: UTF8.self))
        }

        func fetches(_ path: String) -> Int {
            origin.receivedRequests.filter { $0.hasPrefix("GET \(path) ") }.count
        }

        func keys() -> ProviderKeys {
            ProviderKeys(issuer: issuer, allowHTTP: true, fetcher: fetcher, clock: { [clock] in clock.now })
        }

        func token(_ signer: TestSigner, kid: String, exp: Int64? = nil) throws -> String {
            let claims: JSONValue = [
                "iss": .string(issuer), "sub": "alice", "aud": .string(ProviderKeysTests.clientID),
                "exp": .int(exp ?? clock.now + 300), "iat": .int(clock.now), "nonce": .string(ProviderKeysTests.nonce),
            ]
            return try signer.token(kid: kid, claims: claims)
        }
    }

    /// The provider's fetcher, each fetch counted and held at a gate first.
    final class GatedFetcher: URLFetching {
        let fetcher: Fetcher
        let gate: TestGate
        let started = Mutex(0)

        init(fetcher: Fetcher, gate: TestGate) {
            self.fetcher = fetcher
            self.gate = gate
        }

        func fetch(_ url: String) async throws(FetchError) -> FetchResponse {
            started.withLock { $0 += 1 }
            await gate.wait()
            return try await fetcher.fetch(url)
        }
    }

    @Test("sign-ins that need the discovery document together share one fetch of it (issue 67)")
    func oneFetchInFlight() async throws {
        let provider = try Provider(keys: [TestSigner.rs256.jwk])
        let gated = GatedFetcher(fetcher: provider.fetcher, gate: TestGate())
        let keys = ProviderKeys(
            issuer: provider.issuer, allowHTTP: true, fetcher: gated, clock: { [clock = provider.clock] in clock.now })
        let callers = (0..<5).map { _ in Task { try await keys.discovery().issuer } }
        let url = ProviderMetadata.discoveryURL(issuer: provider.issuer)
        try await waitUntil("five sign-ins wait on one fetch", limit: .seconds(60)) {
            await keys.flights.waiting(for: url) == 5
        }
        await gated.gate.open()
        for caller in callers { #expect(try await caller.value == provider.issuer) }
        #expect(gated.started.withLock { $0 } == 1 && provider.fetches("/.well-known/openid-configuration") == 1)
    }

    @Test("a token verifies with the fetched keys; the documents are fetched once and kept")
    func verifies() async throws {
        let provider = try Provider(keys: [TestSigner.rs256.jwk])
        let keys = provider.keys()
        for _ in 0..<2 {
            let claims = try await keys.verify(
                idToken: try provider.token(.rs256, kid: "rsa1"), clientID: Self.clientID, nonce: Self.nonce)
            #expect(claims.subject == "alice" && claims.issuer == provider.issuer)
        }
        #expect(provider.fetches("/.well-known/openid-configuration") == 1 && provider.fetches("/jwks") == 1)
        provider.clock.advance(ProviderKeys.documentLifetime)
        _ = try await keys.verify(
            idToken: try provider.token(.rs256, kid: "rsa1"), clientID: Self.clientID, nonce: Self.nonce)
        #expect(provider.fetches("/.well-known/openid-configuration") == 2 && provider.fetches("/jwks") == 2)
    }

    @Test("a rotated key is fetched again once a minute has passed; an unknown kid twice fetches once and is refused")
    func rotation() async throws {
        let provider = try Provider(keys: [TestSigner.rs256.jwk])
        let keys = provider.keys()
        _ = try await keys.verify(
            idToken: try provider.token(.rs256, kid: "rsa1"), clientID: Self.clientID, nonce: Self.nonce)
        provider.publish([TestSigner.rs256.jwk, TestSigner.edDSA.jwk])
        // The keys were fetched less than a minute ago: no second fetch, the new kid is refused.
        await #expect(throws: ProviderError.token(JWTError(.unknownKey, "kid names no published key"))) {
            try await keys.verify(
                idToken: try provider.token(.edDSA, kid: "ed1"), clientID: Self.clientID, nonce: Self.nonce)
        }
        #expect(provider.fetches("/jwks") == 1)
        provider.clock.advance(ProviderKeys.refetchInterval)
        let claims = try await keys.verify(
            idToken: try provider.token(.edDSA, kid: "ed1"), clientID: Self.clientID, nonce: Self.nonce)
        #expect(claims.subject == "alice" && provider.fetches("/jwks") == 2)

        provider.clock.advance(ProviderKeys.refetchInterval)
        for _ in 0..<2 {
            let error = await #expect(throws: ProviderError.self) {
                try await keys.verify(
                    idToken: try provider.token(.rs256, kid: "made-up"), clientID: Self.clientID, nonce: Self.nonce)
            }
            #expect(error == .token(JWTError(.unknownKey, "kid names no published key")))
        }
        #expect(provider.fetches("/jwks") == 3)
    }

    @Test("a provider that moves its keys to another jwks_uri is read again at the unknown kid, once a minute (issue 66)")
    func movedKeys() async throws {
        let provider = try Provider(keys: [TestSigner.rs256.jwk])
        let keys = provider.keys()
        _ = try await keys.verify(
            idToken: try provider.token(.rs256, kid: "rsa1"), clientID: Self.clientID, nonce: Self.nonce)
        provider.origin.set(
            "/keys-2026",
            body: String(
                decoding: JSONValue.object([("keys", .array([TestSigner.edDSA.jwk]))]).serialize(), as: UTF8.self))
        provider.publishDiscovery(jwks: "/keys-2026")
        provider.clock.advance(ProviderKeys.refetchInterval)
        let claims = try await keys.verify(
            idToken: try provider.token(.edDSA, kid: "ed1"), clientID: Self.clientID, nonce: Self.nonce)
        #expect(claims.subject == "alice")
        #expect(provider.fetches("/.well-known/openid-configuration") == 2 && provider.fetches("/keys-2026") == 1)
        #expect(provider.fetches("/jwks") == 1)
    }

    @Test("an expired token, a wrong nonce, a failing JWKS and another issuer's document are refused")
    func refusals() async throws {
        let provider = try Provider(keys: [TestSigner.rs256.jwk])
        let keys = provider.keys()
        let expired = try provider.token(.rs256, kid: "rsa1", exp: provider.clock.now - 61)
        let error = await #expect(throws: ProviderError.self) {
            try await keys.verify(idToken: expired, clientID: Self.clientID, nonce: Self.nonce)
        }
        #expect(error == .token(JWTError(.expired, "the id_token has expired")))
        let wrongNonce = await #expect(throws: ProviderError.self) {
            try await keys.verify(
                idToken: try provider.token(.rs256, kid: "rsa1"), clientID: Self.clientID, nonce: "another")
        }
        #expect(wrongNonce == .token(JWTError(.wrongNonce, "nonce is not the login's")))

        let failing = try Provider(keys: [])
        failing.origin.set("/jwks", status: 500, body: "")
        let status = await #expect(throws: ProviderError.self) {
            try await failing.keys().verify(
                idToken: try failing.token(.rs256, kid: "rsa1"), clientID: Self.clientID, nonce: Self.nonce)
        }
        #expect(status == .status(500, document: "jwks"))

        let other = ProviderKeys(
            issuer: provider.issuer + "/", allowHTTP: true, fetcher: provider.fetcher, clock: { 0 })
        let mismatch = await #expect(throws: ProviderError.self) { try await other.discovery() }
        #expect(mismatch == .discovery(DiscoveryError(.issuerMismatch, member: "issuer", found: provider.issuer)))
        let strict = ProviderKeys(issuer: provider.issuer, allowHTTP: false, fetcher: provider.fetcher, clock: { 0 })
        let http = await #expect(throws: ProviderError.self) { try await strict.discovery() }
        #expect(http == .discovery(DiscoveryError(.badEndpoint, member: "authorization_endpoint")))
    }

    @Test("published keys for an identity assertion: kept, fetched again on refresh at most once a minute (issue 86)")
    func publishedKeys() async throws {
        let provider = try Provider(keys: [TestSigner.rs256.jwk])
        let keys = provider.keys()
        let edToken = try provider.token(.edDSA, kid: "ed1")
        #expect(try await keys.publishedKeys(refresh: false).keys.count == 1)
        #expect(try await keys.publishedKeys(refresh: false).keys.count == 1)
        #expect(provider.fetches("/jwks") == 1)
        provider.publish([TestSigner.rs256.jwk, TestSigner.edDSA.jwk])
        // Less than a minute after the last fetch, a refresh keeps the keys: the new kid is still unknown.
        await #expect(throws: JWTError.self) { _ = try await keys.publishedKeys(refresh: true).verify(edToken) }
        #expect(provider.fetches("/jwks") == 1)
        provider.clock.advance(ProviderKeys.refetchInterval)
        #expect(try await keys.publishedKeys(refresh: true).verify(edToken).sub == "alice")
        #expect(provider.fetches("/jwks") == 2)
    }
}
