import AuthCrypto
import Directory
import JSON
import JWT
import OAuthGrants
import Testing

/// The access token's claims, minted and read by one type.
@Suite("OAuth access-token claims: minted and verified as one type")
struct OAuthAccessClaimsTests {
    let keys: JWTKeySet
    let claims = OAuthAccessClaims(
        ownerID: "owner-1", clientID: "client-1", resource: "https://postern.test/mcp", permissions: .read, jti: "j-1")

    init() throws {
        keys = try JWTKeySet(
            keys: [try .ed25519(kid: "ed-1", privateKey: try Ed25519PrivateKey.generate())], activeHMAC: nil,
            activeRSA: nil, activeEdDSA: "ed-1")
    }

    @Test("what is minted verifies back to the same claims, in the RFC 9068 order")
    func roundTrip() throws {
        let minted = claims.claims(issuer: "https://postern.test", issuedAt: 1_000, ttl: 900)
        #expect(minted.members.map(\.0) == ["iss", "sub", "iat", "exp", "jti", "pur", "aud", "client_id", "scope"])
        #expect(minted["scope"] == .string("mail.read"))
        let token = try keys.sign(minted, for: OAuthAccessClaims.purpose)
        let read = try OAuthAccessClaims.verify(
            token, keys: keys, issuer: "https://postern.test", lifetime: 900, now: 1_100)
        #expect(read == claims)
        #expect(throws: JWTError.self) {
            _ = try OAuthAccessClaims.verify(token, keys: keys, issuer: "https://other.test", lifetime: 900, now: 1_100)
        }
    }

    @Test("a scope outside mail.read and mail.send, an empty one or an audience that is no string is refused")
    func refusals() throws {
        let cases: [(String, JSONValue)] = [
            ("scope", .string("mail.read admin")), ("scope", .string("")), ("aud", .array([])),
        ]
        for (name, value) in cases {
            var minted = claims.claims(issuer: "https://postern.test", issuedAt: 1_000, ttl: 900)
            minted[name] = value
            let token = try keys.sign(minted, for: OAuthAccessClaims.purpose)
            let error = #expect(throws: JWTError.self) {
                _ = try OAuthAccessClaims.verify(
                    token, keys: keys, issuer: "https://postern.test", lifetime: 900, now: 1_100)
            }
            #expect(error?.code == (name == "aud" ? .wrongAudience : .wrongScope))
        }
    }

    @Test("an untyped verification refuses an access token: its audience is only read by the claims type")
    func untypedRefuses() throws {
        let token = try keys.sign(
            claims.claims(issuer: "https://postern.test", issuedAt: 1_000, ttl: 900), for: OAuthAccessClaims.purpose)
        let error = #expect(throws: JWTError.self) {
            _ = try keys.verify(
                token, policy: JWTPolicy(purpose: .oauthAccess, issuer: "https://postern.test", maximumLifetime: 900),
                now: 1_100)
        }
        #expect(error?.code == .wrongAudience)
    }
}
