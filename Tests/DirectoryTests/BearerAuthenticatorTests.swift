import AuthCrypto
import Directory
import JWT
import Synchronization
import Testing

@Suite("One bearer chain for every resource server")
struct BearerAuthenticatorTests {
    static let now: Int64 = 1_700_000_000
    static let keys: JWTKeySet = {
        let rsa = try! RSAPrivateKey.generate(bits: 2048)
        return try! JWTKeySet(
            keys: [
                JWTKey.rsa(kid: "r", privateKey: rsa),
                try! JWTKey.ed25519(kid: "e", privateKey: Ed25519PrivateKey.generate()),
            ], activeHMAC: nil, activeRSA: "r", activeEdDSA: "e")
    }()

    /// An access-token verifier that records the tokens it was asked about and opens a grant for each.
    final class Verifier: AccessGrantAuthenticator {
        let asked = Mutex<[String]>([])
        func grant(for token: String, resources: Set<AccessGrant.Resource>) async throws -> AccessGrant {
            asked.withLock { $0.append(token) }
            guard resources.contains(.mcp) else { throw AuthenticationRefusal(.invalidToken, "not for this resource") }
            return AccessGrant(
                ownerID: "owner", grantID: "grant", clientID: "client", resource: .mcp, permissions: .read,
                defaultInboxID: nil)
        }
    }

    static let capability = CapabilityAuthenticator(
        keys: keys, issuer: "https://issuer.test", audience: "api-service", lifetime: 120,
        directory: FixedDirectory(domains: ["agents.test"], accounts: ["bot@agents.test": 500]), clock: { now })

    static func accessToken() throws -> String {
        var claims = JWTClaims(
            issuer: "https://issuer.test", subject: "owner", purpose: .oauthAccess, issuedAt: now, ttl: 900)
        claims["aud"] = "https://issuer.test/mcp"
        return try keys.sign(claims, for: .oauthAccess)
    }

    static func capabilityToken() throws -> String {
        try keys.sign(
            CapabilityClaims(accountID: "acct-1", inbox: "bot@agents.test").claims(
                issuer: "https://issuer.test", audience: "api-service", issuedAt: now, ttl: 120, jti: "j"),
            for: CapabilityClaims.purpose)
    }

    @Test("a header typed at+jwt goes to the access-token verifier; a capability token or an API key never does")
    func routing() async throws {
        let verifier = Verifier()
        let chain = BearerAuthenticator(accessTokens: verifier, principals: Self.capability)
        let access = try Self.accessToken()
        #expect(BearerAuthenticator.isAccessToken(access))
        #expect(
            try await chain.authenticate(Credentials(bearerToken: access), resources: [.mcp])
                == .owner(
                    AccessGrant(
                        ownerID: "owner", grantID: "grant", clientID: "client", resource: .mcp, permissions: .read,
                        defaultInboxID: nil)))
        #expect(
            try await chain.authenticate(Credentials(bearerToken: try Self.capabilityToken()), resources: [.mcp])
                == .principal(
                    Principal(accountID: "acct-1", mailbox: Recipient(address: "bot@agents.test", quota: 500))))
        #expect(try await chain.authenticate(Credentials(bearerToken: "postern_ak_x"), resources: [.mcp]) == nil)
        #expect(try await chain.authenticate(Credentials(bearerToken: "a.b.c"), resources: [.mcp]) == nil)
        #expect(verifier.asked.withLock { $0 } == [access])
        await #expect(throws: AuthenticationRefusal.self) {
            _ = try await chain.authenticate(Credentials(bearerToken: access), resources: [.jmap])
        }
    }

    @Test("a route of access tokens only verifies every bearer as one; without OAuth every bearer is the inbox's")
    func oneKindOnly() async throws {
        let verifier = Verifier()
        let ownersOnly = BearerAuthenticator(accessTokens: verifier, principals: nil)
        _ = try await ownersOnly.authenticate(Credentials(bearerToken: "postern_ak_x"), resources: [.mcp])
        #expect(verifier.asked.withLock { $0 } == ["postern_ak_x"])

        let inboxesOnly = BearerAuthenticator(accessTokens: nil, principals: Self.capability)
        let access = Credentials(bearerToken: try Self.accessToken())
        #expect(try await inboxesOnly.authenticate(access, resources: [.mcp]) == nil)
    }
}
