import AuthCrypto
import Foundation
import JWT
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// An EdDSA access token that a running server signs verifies in a JOSE stack we did not write: Python's
/// `cryptography` (OpenSSL through its own bindings) with only the served `/.well-known/jwks.json`, through
/// `Tests/Clients/verify_eddsa.py`. `scripts/bootstrap --test` installs `cryptography`; a machine without it fails
/// this test rather than skipping it.
@Suite("OAuth access tokens verify from the JWKS in Python")
struct OAuthAccessTokenInteropTests {
    /// Runs the script on `jwks` and `token`; returns its exit status and output.
    func verify(jwks: Data, token: String) async throws -> (Int32, String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try jwks.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await PythonScript.run("Clients/verify_eddsa.py", arguments: [file.path, token])
    }

    @Test(
        "a token the server signs verifies from its JWKS; a tampered one and one of another key do not",
        arguments: StorageBackend.allCases)
    func pythonVerifies(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let jwks = try await server.client().request("GET", "/.well-known/jwks.json")
        #expect(jwks.status == 200)
        var claims = JWTClaims(
            issuer: "http://127.0.0.1:\(server.port)", subject: "agent-1", purpose: .oauthAccess,
            issuedAt: Operations.unixNow(), ttl: 900)
        claims["client_id"] = "https://client.example/metadata.json"
        claims["scope"] = "mail.read"
        let token = try server.runtime.keys.sign(claims, for: .oauthAccess)

        let (status, log) = try await verify(jwks: Data(jwks.body), token: token)
        #expect(status == 0, "verify_eddsa.py refused the server's token:\n\(log)")
        #expect(log.contains(#""client_id": "https://client.example/metadata.json""#))

        var parts = token.split(separator: ".").map(String.init)
        var elevated = claims
        elevated["scope"] = "mail.read mail.send"
        parts[1] = Base64URL.encode(elevated.json.serialize())
        let (tamperedStatus, tamperedLog) = try await verify(jwks: Data(jwks.body), token: parts.joined(separator: "."))
        #expect(tamperedStatus == 1 && tamperedLog.contains("InvalidSignature"), "\(tamperedLog)")

        // Same kid, same header, another Ed25519 key: Python must refuse it too.
        let kid = try #require(server.runtime.keys.activeKID(for: .edDSA))
        let forger = try JWTKeySet(
            keys: [JWTKey.ed25519(kid: kid, privateKey: Ed25519PrivateKey.generate())], activeHMAC: nil,
            activeRSA: nil, activeEdDSA: kid)
        let forged = try forger.sign(claims, for: .oauthAccess)
        let (forgedStatus, forgedLog) = try await verify(jwks: Data(jwks.body), token: forged)
        #expect(forgedStatus == 1 && forgedLog.contains("InvalidSignature"), "\(forgedLog)")
    }
}
