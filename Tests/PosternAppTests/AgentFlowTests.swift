import AgentAuth
import AgentClient
import AuthCrypto
import Foundation
import PosternTestSupport
import Testing
@testable import PosternApp

/// The exact requests of the Python example in api-docs/001 (challenge, PoW, signup, a second challenge,
/// login with the API key, capability) against a real server, checking every documented field.
@Suite("Agent flow as the documented Python client performs it")
struct AgentFlowTests {
    /// `decode_challenge_jwt`: the client reads `jti` and `difficulty` from the payload without verifying.
    private func decodeChallenge(_ jwt: String) throws -> (String, Int) {
        let parts = jwt.split(separator: ".")
        let payload = try #require(parts.count == 3 ? Base64URL.decode(String(parts[1])) : nil)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        return (try #require(object["jti"] as? String), try #require(object["difficulty"] as? Int))
    }

    private func claims(_ jwt: String) throws -> [String: Any] {
        let parts = jwt.split(separator: ".")
        let payload = try #require(Base64URL.decode(String(parts[1])))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    private func header(_ jwt: String) throws -> [String: Any] {
        let part = try #require(Base64URL.decode(String(jwt.split(separator: ".")[0])))
        return try #require(try JSONSerialization.jsonObject(with: Data(part)) as? [String: Any])
    }

    /// `get_challenge` + `solve_pow`.
    private func challengeAndProof(_ client: TestHTTPClient) async throws -> (jwt: String, nonce: UInt64, powHex: String) {
        let response = try await client.request("POST", "/api/v1/challenge")
        #expect(response.status == 200)
        let jwt = try #require(response.bearer)
        let (challenge, difficulty) = try decodeChallenge(jwt)
        #expect(challenge.count == 32 && challenge.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        let body = try response.json()
        #expect(body["challenge"] as? String == challenge)
        #expect(body["difficulty"] as? Int == difficulty)
        #expect(body["algorithm"] as? String == "scrypt")
        #expect(body["salt"] as? String == AgentAuthConfiguration.defaultPoWSalt)
        // The solver blocks its threads: keep it off the cooperative pool the in-process server needs.
        let solution = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try AgentPoWSolver().solve(
                        challenge: challenge, salt: AgentAuthConfiguration.defaultPoWSalt, difficulty: difficulty)
                })
            }
        }
        return (jwt, solution.nonce, solution.powHex)
    }

    @Test(
        "signup, login with the API key, capability verifiable from the JWKS alone", arguments: StorageBackend.allCases)
    func pythonExampleFlow(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()

        // 1) challenge + PoW, 2) register once
        let first = try await challengeAndProof(client)
        let signup = try await client.json(
            "POST", "/api/v1/session", ["powHex": first.powHex, "nonce": String(first.nonce), "username": "myagent"],
            headers: [("Authorization", "Bearer \(first.jwt)")])
        #expect(signup.status == 201)
        #expect(signup.header("Cache-Control") == "no-store")
        let registration = try signup.json()
        let apiKey = try #require(registration["apiKey"] as? String)
        #expect(registration["inbox"] as? String == "myagent@agents.localhost")
        #expect(registration["username"] as? String == "myagent")
        #expect((registration["_next"] as? [String])?.isEmpty == false)
        let signupSession = try #require(signup.bearer)
        #expect(try claims(signupSession)["pur"] as? String == "session")

        // 3) session -> capability, with a second challenge and the API key
        let second = try await challengeAndProof(client)
        let login = try await client.json(
            "POST", "/api/v1/session", ["powHex": second.powHex, "nonce": String(second.nonce), "apiKey": apiKey],
            headers: [("Authorization", "Bearer \(second.jwt)")])
        #expect(login.status == 200)
        #expect(try login.json()["inbox"] as? String == "myagent@agents.localhost")
        let session = try #require(login.bearer)
        let sessionClaims = try claims(session)
        #expect(sessionClaims["pur"] as? String == "session")
        #expect(sessionClaims["inboxId"] as? String == "myagent@agents.localhost")
        #expect(sessionClaims["iss"] as? String == "http://postern.test")
        let sessionLife = try #require(sessionClaims["exp"] as? Int) - (try #require(sessionClaims["iat"] as? Int))
        #expect(sessionLife == 3600)

        let capabilityResponse = try await client.request(
            "POST", "/api/v1/capability", headers: [("Authorization", "Bearer \(session)")])
        #expect(capabilityResponse.status == 200)
        #expect(try capabilityResponse.json()["expires_in"] as? Int == 120)
        let capability = try #require(capabilityResponse.bearer)
        let capabilityClaims = try claims(capability)
        #expect(capabilityClaims["pur"] as? String == "capability")
        #expect(capabilityClaims["aud"] as? String == "api-service")
        #expect(capabilityClaims["scope"] as? String == "jmap")
        #expect(capabilityClaims["inboxId"] as? String == "myagent@agents.localhost")
        #expect(capabilityClaims["sub"] as? String == sessionClaims["sub"] as? String)
        let capabilityLife = try #require(capabilityClaims["exp"] as? Int) - (try #require(capabilityClaims["iat"] as? Int))
        #expect(capabilityLife == 120)

        // A resource server with only the JWKS verifies the capability.
        let capabilityHeader = try header(capability)
        #expect(capabilityHeader["alg"] as? String == "RS256")
        let kid = try #require(capabilityHeader["kid"] as? String)
        let jwks = try await client.request("GET", "/.well-known/jwks.json").json()
        let jwk = try #require((jwks["keys"] as? [[String: Any]])?.first { $0["kid"] as? String == kid })
        let publicKey = try JWKPublicKey.make(n: try #require(jwk["n"] as? String), e: try #require(jwk["e"] as? String))
        let parts = capability.split(separator: ".")
        let signature = try #require(Base64URL.decode(String(parts[2])))
        #expect(publicKey.verifySHA256(signature: signature, message: Array("\(parts[0]).\(parts[1])".utf8)))
        var tampered = Array("\(parts[0]).\(parts[1])".utf8)
        tampered[tampered.count - 2] ^= 1
        #expect(!publicKey.verifySHA256(signature: signature, message: tampered))
    }

    @Test("llms.txt has every anchor that an error's docs_url points at", arguments: StorageBackend.allCases)
    func docsAnchorsExist(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let llms = try await client.request("GET", "/llms.txt")
        #expect(llms.status == 200)
        #expect(llms.text.contains("/api/v1/challenge"))
        // GitHub-style slugs of the Markdown headings: lower case, spaces to hyphens, punctuation dropped.
        let slugs = Set(llms.text.split(separator: "\n").filter { $0.hasPrefix("#") }.map { line in
            String(line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                .map { $0 == " " ? "-" : $0 }.filter { $0.isLetter || $0.isNumber || $0 == "-" })
        })
        let failures = [
            try await client.request("POST", "/api/v1/session", headers: [("Authorization", "Bearer nope")]),
            try await client.request("POST", "/api/v1/capability"),
            try await client.request("GET", "/api/v1/challenge"),
            try await client.request("POST", "/api/v1/nothing"),
        ]
        #expect(failures.map(\.status) == [401, 401, 405, 404])
        for failure in failures {
            let error = try #require(try failure.json()["error"] as? [String: Any])
            #expect((error["message"] as? String)?.isEmpty == false)
            #expect((error["hint"] as? String)?.isEmpty == false)
            let url = try #require(error["docs_url"] as? String)
            let anchor = try #require(url.split(separator: "#").last)
            #expect(url.hasPrefix("http://postern.test/llms.txt#"))
            #expect(slugs.contains(String(anchor)), "llms.txt has no heading for #\(anchor)")
        }
    }
}
