import AuthCrypto
import JSON
import JWT
import OAuthServer
import Testing

@Suite("private_key_jwt client assertions (RFC 7523)")
struct OAuthClientAssertionTests {
    /// RFC 8037 appendix A.1's Ed25519 key, published with kid `rfc8037`.
    static let rfcJWKS =
        #"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"rfc8037","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#
    /// Signed with RFC 8037's private key `nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A` (Ed25519 is deterministic; the
    /// same key signs RFC 8037 A.4's example to the RFC's signature): `iss` = `sub` = `vector-client`, `aud` the
    /// token endpoint, `iat` 1700000000, `exp` 1700000300, `jti` `vector-jti-1`.
    static let vector =
        "eyJhbGciOiJFZERTQSIsImtpZCI6InJmYzgwMzcifQ.eyJpc3MiOiJ2ZWN0b3ItY2xpZW50Iiwic3ViIjoidmVjdG9yLWNsaWVudCIsImF1ZCI6"
        + "Imh0dHA6Ly8xMjcuMC4wLjE6ODA4MC9vYXV0aC90b2tlbiIsImV4cCI6MTcwMDAwMDMwMCwiaWF0IjoxNzAwMDAwMDAwLCJqdGkiOiJ2ZWN0b3Itan"
        + "RpLTEifQ.BxGngezyT_S6_FJj_Cu6GIY-6klc4J9BkbAQhxYyfgsNnil7nixDX-EpgAkJCRgPqcGXH2wzcqDMvy3N9ZT_Cw"
    static let audiences = ["http://127.0.0.1:8080", "http://127.0.0.1:8080/oauth/token"]
    static let now: Int64 = 1_700_000_010

    static func verify(
        _ token: String, keys: String = rfcJWKS, client: String = "vector-client", now: Int64 = now,
        audiences: [String] = audiences
    ) throws(JWTError) -> OAuthClientAssertion.Verified {
        try OAuthClientAssertion.verify(
            token, keys: try PublishedKeySet(jwks: Array(keys.utf8)), clientID: client, audiences: audiences, now: now,
            maxLifetime: 600)
    }

    @Test("the known vector verifies, and names its client before any check")
    func knownVector() throws {
        #expect(try Self.verify(Self.vector) == .init(jti: "vector-jti-1", expiresAt: 1_700_000_300))
        #expect(OAuthClientAssertion.claimedClient(Self.vector) == "vector-client")
        #expect(OAuthClientAssertion.claimedClient("not.a.jwt") == nil)
    }

    @Test("the known vector is refused for another client, audience, time or key")
    func knownVectorRefusals() throws {
        let otherKid = Self.rfcJWKS.replacingOccurrences(of: "rfc8037", with: "other")
        let cases: [(JWTError.Code, String, String, String, Int64, [String])] = [
            (.wrongIssuer, Self.vector, Self.rfcJWKS, "other-client", Self.now, Self.audiences),
            (.wrongAudience, Self.vector, Self.rfcJWKS, "vector-client", Self.now, ["https://elsewhere"]),
            (.expired, Self.vector, Self.rfcJWKS, "vector-client", 1_700_000_331, Self.audiences),
            (.notYetValid, Self.vector, Self.rfcJWKS, "vector-client", 1_699_999_900, Self.audiences),
            (.unknownKey, Self.vector, otherKid, "vector-client", Self.now, Self.audiences),
            (.badSignature, Self.tampered(Self.vector), Self.rfcJWKS, "vector-client", Self.now, Self.audiences),
        ]
        for (code, token, keys, client, now, audiences) in cases {
            let error = try #require(throws: JWTError.self, "\(code)") {
                try Self.verify(token, keys: keys, client: client, now: now, audiences: audiences)
            }
            #expect(error.code == code, "\(error)")
        }
    }

    /// The vector with one payload character changed (`vector-jti-1` becomes `vector-jti-2`).
    static func tampered(_ token: String) -> String {
        let parts = token.split(separator: ".").map(String.init)
        let payload = String(decoding: Base64URL.decode(parts[1]) ?? [], as: UTF8.self)
            .replacingOccurrences(of: "jti-1", with: "jti-2")
        return [parts[0], Base64URL.encode(Array(payload.utf8)), parts[2]].joined(separator: ".")
    }

    /// An Ed25519 key that signs assertions, and its JWKS.
    struct Signer {
        let keys: JWTKeySet
        let jwks: String

        init(kid: String = "client-key") throws {
            let key = try Ed25519PrivateKey.generate()
            keys = try JWTKeySet(
                keys: [try .ed25519(kid: kid, privateKey: key)], activeHMAC: nil, activeRSA: nil, activeEdDSA: kid)
            jwks = String(
                decoding: JSONValue.object([("keys", .array([JWK.okpPublicJWK(key.publicKey, kid: kid)]))]).serialize(),
                as: UTF8.self)
        }

        /// An assertion of `client` with these claims changed (nil removes one).
        func assertion(_ client: String, now: Int64, _ changes: [String: JSONValue?] = [:]) throws -> String {
            var claims = JWTClaims([
                ("iss", .string(client)), ("sub", .string(client)), ("aud", .string(audiences[1])),
                ("iat", .int(now)), ("exp", .int(now + 60)), ("jti", .string(SecureRandom.identifier(byteCount: 8))),
            ])
            for (name, value) in changes { claims[name] = value }
            return try keys.sign(claims, algorithm: .edDSA)
        }
    }

    @Test("adversarial claims are each refused with the check that failed")
    func adversarial() throws {
        let signer = try Signer()
        let now = Self.now
        let cases: [(String, [String: JSONValue?], JWTError.Code)] = [
            ("iss another client", ["iss": "mallory"], .wrongIssuer),
            ("sub another client", ["sub": "mallory"], .wrongIssuer),
            ("no iss", ["iss": nil], .wrongIssuer),
            ("aud another server", ["aud": "https://other.example/oauth/token"], .wrongAudience),
            ("aud an array of others", ["aud": .array(["https://a.example", "https://b.example"])], .wrongAudience),
            ("aud not strings", ["aud": .array([.int(1)])], .malformed),
            ("no aud", ["aud": nil], .missingClaim),
            ("no exp", ["exp": nil], .missingClaim),
            ("exp a string", ["exp": "soon"], .malformed),
            ("expired", ["exp": .int(now - 31)], .expired),
            ("exp a day ahead", ["exp": .int(now + 86_400)], .lifetimeTooLong),
            ("iat in the future", ["iat": .int(now + 120)], .notYetValid),
            ("iat an hour old", ["iat": .int(now - 3_600)], .expired),
            ("nbf in the future", ["nbf": .int(now + 120)], .notYetValid),
            ("no jti", ["jti": nil], .missingClaim),
            ("empty jti", ["jti": ""], .malformed),
            ("jti too long", ["jti": .string(String(repeating: "j", count: 257))], .malformed),
        ]
        for (name, changes, code) in cases {
            let token = try signer.assertion("c1", now: now, changes)
            let error = try #require(throws: JWTError.self, "\(name)") {
                try Self.verify(token, keys: signer.jwks, client: "c1")
            }
            #expect(error.code == code, "\(name): \(error)")
        }
        // Both audiences this server answers to pass, in a string or in an array with others.
        for aud: JSONValue in [.string(Self.audiences[0]), .array(["https://x.example", .string(Self.audiences[1])])] {
            let token = try signer.assertion("c1", now: now, ["aud": aud])
            #expect(try Self.verify(token, keys: signer.jwks, client: "c1").expiresAt == now + 60)
        }
    }

    @Test("another key, alg none, an HS256 MAC and an unknown kid are refused")
    func keys() throws {
        let signer = try Signer()
        let stranger = try Signer()
        let forged = try stranger.assertion("c1", now: Self.now)
        #expect(throws: JWTError.self) { try Self.verify(forged, keys: signer.jwks, client: "c1") }
        let unknown = try Signer(kid: "unknown-kid").assertion("c1", now: Self.now)
        let error = try #require(throws: JWTError.self) { try Self.verify(unknown, keys: signer.jwks, client: "c1") }
        #expect(error.code == .unknownKey)
        let parts = try signer.assertion("c1", now: Self.now).split(separator: ".").map(String.init)
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"client-key"}"#.utf8)) + "." + parts[1] + "."
        #expect(throws: JWTError.self) { try Self.verify(none, keys: signer.jwks, client: "c1") }
        let hmac = try JWTKeySet(
            keys: [try .hmac(kid: "client-key", secret: Array(signer.jwks.utf8))], activeHMAC: "client-key",
            activeRSA: nil)
        let mac = try hmac.sign(JWTClaims([("iss", "c1"), ("sub", "c1")]), algorithm: .hs256)
        #expect(throws: JWTError.self) { try Self.verify(mac, keys: signer.jwks, client: "c1") }
    }
}
