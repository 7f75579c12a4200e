import AgentAuth
import AuthCrypto
import Foundation
import Testing

@testable import AgentClient

@Suite("AgentClient reads challenges as the documented clients do")
struct AgentClientChallengeDecodingTests {
    @Test("jti and difficulty come from the unverified JWT payload; a malformed token gives nil")
    func unverifiedClaims() throws {
        let payload = Base64URL.encode(Array(#"{"jti":"abc123","difficulty":7}"#.utf8))
        let claims = try #require(AgentClient.unverifiedClaims("eyJhbGciOiJIUzI1NiJ9.\(payload).c2ln"))
        #expect(claims["jti"] as? String == "abc123")
        #expect(claims["difficulty"] as? Int == 7)
        #expect(AgentClient.unverifiedClaims("only.two") == nil)
        #expect(AgentClient.unverifiedClaims("a.!!!.c") == nil)
    }

    @Test("the salt defaults to the hosted service's")
    func defaultSalt() throws {
        #expect(try AgentClient().salt == AgentAuthConfiguration.defaultPoWSalt)
    }
}
