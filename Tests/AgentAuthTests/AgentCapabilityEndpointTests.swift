import AuthCrypto
import Directory
import HTTP1
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import AgentAuth

@Suite("POST /api/v1/capability")
struct AgentCapabilityEndpointTests {
    /// What a resource server (JMAP) requires of the capability: RS256, 120 s at most, the one audience string, the
    /// JMAP scope.
    static let capabilityPolicy = CapabilityClaims.policy(
        issuer: "https://issuer.test", audience: "api-service", lifetime: 120)

    @Test(
        "A live session buys an RS256 capability JWT that verifies with the public key alone",
        arguments: StorageBackend.allCases)
    func capability(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, session) = try await harness.signup("capagent")
        let response = await harness.send(.POST, "/api/v1/capability", bearer: session)
        #expect(response.status.code == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try response.json()
        #expect(body.objectValue?.map(\.0) == ["expires_in", "_next"])
        #expect(body["expires_in"]?.intValue == 120)
        #expect((body["_next"]?.arrayValue?.count ?? 0) > 0)

        let token = try #require(response.bearer)
        let header = try JSONValue.parse(try #require(Base64URL.decode(String(token.split(separator: ".")[0]))))
        #expect(header["alg"]?.stringValue == "RS256")
        #expect(header["kid"]?.stringValue == "rs-test")
        let publicOnly = try JWTKeySet(
            keys: [JWTKey.rsa(kid: "rs-test", publicKey: TestKeys.rsa.publicKey)], activeHMAC: nil, activeRSA: nil)
        let claims = try publicOnly.verify(
            token, policy: Self.capabilityPolicy, now: harness.clock.now)
        let sessionClaims = try TestKeys.keySet.verify(
            session, policy: harness.service.sessionPolicy, now: harness.clock.now)
        #expect(claims.sub == sessionClaims.sub)
        #expect(claims["inboxId"]?.stringValue == "capagent@agents.localhost")
        #expect(claims["aud"]?.stringValue == "api-service")
        #expect(claims["scope"]?.stringValue == "jmap")
        #expect(claims.exp == harness.clock.now + 120)
        #expect(claims.iat == harness.clock.now)
        #expect(claims.jti?.count == 32)
        let typed = try publicOnly.verify(
            token, as: CapabilityClaims.self, policy: Self.capabilityPolicy, now: harness.clock.now)
        #expect(typed == CapabilityClaims(accountID: try #require(sessionClaims.sub), inbox: "capagent@agents.localhost"))
    }

    @Test(
        "No bearer, a challenge, a capability, an expired or foreign-issuer session: 401 Invalid or expired session",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, session) = try await harness.signup("refusedcap")
        let capability = try #require(await harness.send(.POST, "/api/v1/capability", bearer: session).bearer)
        let challenge = try await harness.challenge()
        expectError(await harness.send(.POST, "/api/v1/capability"), .invalidSession)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: challenge.token), .invalidSession)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: capability), .invalidSession)

        let claims = try TestKeys.keySet.verify(
            session, policy: harness.service.sessionPolicy, now: harness.clock.now)
        var foreign = claims.members.filter { $0.0 != "iss" }
        foreign.append(("iss", .string("https://elsewhere.test")))
        let foreignSession = try TestKeys.keySet.sign(JWTClaims(foreign), algorithm: .hs256)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: foreignSession), .invalidSession)

        harness.clock.advance(3600 + 31)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: session), .invalidSession)
    }

    @Test("Sessions of deleted or revoked accounts stop working at once", arguments: StorageBackend.allCases)
    func deadAccounts(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, deleted) = try await harness.signup("deleteme")
        let (_, revoked) = try await harness.signup("revokeme2")
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: deleted).status.code == 200)
        #expect(try await harness.service.accountStore.delete(username: "deleteme"))
        #expect(try await harness.service.accountStore.revoke(username: "revokeme2", now: harness.clock.now))
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: deleted), .invalidSession)
        expectError(await harness.send(.POST, "/api/v1/capability", bearer: revoked), .invalidSession)
    }
}
