import AuthCrypto
import JWT
import PosternTestSupport
import Testing

@testable import RemoteHashAuth

/// Login tokens with a valid signature by one of the server's own keys that `/validate` still refuses: MACed with
/// the HMAC key (they are RS256), or living longer than the token TTL (issue 32).
@Suite("Remote-hash tokens: algorithm and lifetime")
struct RemoteHashTokenPolicyTests {
    static func claims(_ h: Harness, lifetime: Int64) -> JWTClaims {
        JWTClaims([
            ("sub", "policy@example.com"), ("email", "policy@example.com"), ("iss", "https://postern.test"),
            ("iat", .int(h.clock.now)), ("exp", .int(h.clock.now + lifetime)), ("jti", "policy-test"),
            ("pur", "remote-login"), ("ver", 0),
        ])
    }

    @Test(
        "A remote-login token MACed with the server's HMAC key (HS256) is refused: login tokens are RS256",
        arguments: StorageBackend.allCases)
    func signedWithHMAC(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        #expect(await h.register("policy@example.com", try h.serveHash(of: "pw"), "pw") == (201, nil))
        let control = try sharedKeys.sign(Self.claims(h, lifetime: 3600), algorithm: .rs256)
        #expect(await h.api(.POST, "/validate", ["token": control]).status == 200)

        let hmac = try sharedKeys.sign(Self.claims(h, lifetime: 3600), algorithm: .hs256)
        #expect(await h.api(.POST, "/validate", ["token": hmac]).status == 401)
    }

    @Test(
        "A remote-login token whose exp is further than the token TTL from its iat is refused",
        arguments: StorageBackend.allCases)
    func livingTooLong(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        #expect(await h.register("policy@example.com", try h.serveHash(of: "pw"), "pw") == (201, nil))
        for lifetime: Int64 in [3601, 10 * 365 * 86_400] {
            let tooLong = try sharedKeys.sign(Self.claims(h, lifetime: lifetime), algorithm: .rs256)
            #expect(await h.api(.POST, "/validate", ["token": tooLong]).status == 401)
        }
    }
}
