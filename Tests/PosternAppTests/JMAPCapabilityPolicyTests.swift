import AgentAuth
import AuthCrypto
import Foundation
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import PosternApp

/// Capability tokens that carry a valid signature by one of the server's own keys but are still not what JMAP
/// takes (issue 32): MACed with the HMAC key (capabilities are RS256), an `aud` array where the capability is minted
/// with one audience string, and a lifetime past the capability TTL.
@Suite("JMAP capability: algorithm, audience and lifetime")
struct JMAPCapabilityPolicyTests {
    /// The claims of `capability` as the server minted them, with `edit` applied.
    static func claims(_ capability: String, _ edit: (inout JWTClaims) -> Void) throws -> JWTClaims {
        let payload = try #require(Base64URL.decode(String(capability.split(separator: ".")[1])))
        var claims = JWTClaims(try #require(try JSONValue.parse(payload).objectValue))
        edit(&claims)
        return claims
    }

    @Test(
        "a capability re-signed by the server as minted opens the session; HS256, an aud array, a long exp: 401",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("policyagent")
        let keys = harness.server.runtime.keys

        let control = try keys.sign(try Self.claims(agent.capability) { _ in }, algorithm: .rs256)
        #expect(try await harness.session(token: control).status == 200, "re-signed as minted")

        let hmac = try keys.sign(try Self.claims(agent.capability) { _ in }, algorithm: .hs256)
        #expect(try await harness.session(token: hmac).status == 401, "HS256 with the server's HMAC key")

        for audience: JSONValue in [["api-service"], ["api-service", "other"], ["other", "api-service"], []] {
            let array = try keys.sign(try Self.claims(agent.capability) { $0["aud"] = audience }, algorithm: .rs256)
            #expect(try await harness.session(token: array).status == 401, "aud \(audience)")
        }
        let other = try keys.sign(try Self.claims(agent.capability) { $0["aud"] = "other" }, algorithm: .rs256)
        #expect(try await harness.session(token: other).status == 401, "another audience")

        let capabilityTTL = AgentAuthConfiguration().capabilityTTL
        for lifetime: Int64 in [capabilityTTL + 1, 365 * 86_400] {
            let long = try keys.sign(
                try Self.claims(agent.capability) { $0["exp"] = .int(($0.iat ?? 0) + lifetime) }, algorithm: .rs256)
            #expect(try await harness.session(token: long).status == 401, "lifetime \(lifetime)")
        }
    }
}

