import AuthCrypto
import HTTP1
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import AgentAuth

/// Forged and tampered tokens at both bearer-taking endpoints.
@Suite("Forged and tampered tokens")
struct AgentTokenForgeryTests {
    /// Re-encodes `token` with its payload changed by `edit`, keeping the original signature.
    static func tamper(_ token: String, _ edit: ([(String, JSONValue)]) -> [(String, JSONValue)]) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        let payload = try JSONValue.parse(try #require(Base64URL.decode(parts[1])))
        let edited = JSONValue.object(edit(try #require(payload.objectValue)))
        return parts[0] + "." + Base64URL.encode(edited.serialize()) + "." + parts[2]
    }

    static func unsigned(header: JSONValue, claims: JWTClaims, signature: [UInt8] = []) -> String {
        let input =
            Base64URL.encode(header.serialize()) + "." + Base64URL.encode(JSONValue.object(claims.members).serialize())
        return input + "." + Base64URL.encode(signature)
    }

    @Test(
        "A challenge signed with another secret under our kid, tampered, alg none, or HS256 with the RSA key: 401",
        arguments: StorageBackend.allCases)
    func forgedChallenges(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 4)
        let now = harness.clock.now
        let claims = JWTClaims([
            ("iss", "https://issuer.test"), ("jti", .string(SecureRandom.hex(byteCount: 16))), ("pur", "challenge"),
            ("difficulty", 0), ("iat", .int(now)), ("exp", .int(now + 180)),
        ])
        let body = #"{"powHex":"\#(String(repeating: "0", count: 128))","nonce":"0","username":"forger"}"#
        func send(_ token: String) async -> HTTPResponse {
            await harness.send(.POST, "/api/v1/session", bearer: token, body: body)
        }

        let attacker = try JWTKeySet(
            keys: [JWTKey.hmac(kid: "hs-test", secret: SecureRandom.bytes(32))], activeHMAC: "hs-test", activeRSA: nil)
        expectError(await send(try attacker.sign(claims, algorithm: .hs256)), .invalidChallenge)

        let genuine = try await harness.challenge().token
        let lowered = try Self.tamper(genuine) { members in
            members.map { $0.0 == "difficulty" ? ("difficulty", .int(0)) : $0 }
        }
        expectError(await send(lowered), .invalidChallenge)

        let none = Self.unsigned(header: ["alg": "none", "typ": "JWT", "kid": "hs-test"], claims: claims)
        expectError(await send(none), .invalidChallenge)

        let header: JSONValue = ["alg": "HS256", "typ": "JWT", "kid": "rs-test"]
        let input =
            Base64URL.encode(header.serialize()) + "." + Base64URL.encode(JSONValue.object(claims.members).serialize())
        let confused = HMACSHA256.authenticationCode(
            key: Array(TestKeys.rsa.publicKey.pem.utf8), message: Array(input.utf8))
        expectError(await send(input + "." + Base64URL.encode(confused)), .invalidChallenge)

        let unknownKID = try JWTKeySet(
            keys: [JWTKey.hmac(kid: "other", secret: SecureRandom.bytes(32))], activeHMAC: "other", activeRSA: nil)
        expectError(await send(try unknownKID.sign(claims, algorithm: .hs256)), .invalidChallenge)
    }

    @Test(
        "A session with a tampered subject or signed by an attacker: 401 Invalid or expired session",
        arguments: StorageBackend.allCases)
    func forgedSessions(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, alice) = try await harness.signup("alicebot")
        let (_, bob) = try await harness.signup("bobbybot")
        let bobID = try TestKeys.keySet.verify(
            bob, policy: harness.service.sessionPolicy, now: harness.clock.now
        ).sub
        let stolen = try Self.tamper(alice) { members in
            members.map { $0.0 == "sub" ? ("sub", .string(bobID ?? "")) : $0 }
        }
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: stolen), .invalidSession)

        let claims = try TestKeys.keySet.verify(
            alice, policy: harness.service.sessionPolicy, now: harness.clock.now)
        let attacker = try JWTKeySet(
            keys: [JWTKey.hmac(kid: "hs-test", secret: SecureRandom.bytes(32))], activeHMAC: "hs-test", activeRSA: nil)
        expectError(
            await harness.send(.POST, "/api/v1/capability", bearer: try attacker.sign(claims, algorithm: .hs256)),
            .invalidSession)
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: alice).status.code == 200)
    }
}
