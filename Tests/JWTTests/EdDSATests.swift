import AuthCrypto
import JWT
import Testing

/// EdDSA tokens: the OAuth access tokens' algorithm (RFC 8037), their `typ:"at+jwt"` (RFC 9068) and lifetime cap,
/// and the refusals that keep EdDSA, HS256 and RS256 keys apart.
@Suite("EdDSA and OAuth access tokens")
struct EdDSATests {
    func expectRefusal(
        _ token: String, _ code: JWTError.Code, purpose: JWTPurpose = .oauthAccess, lifetime: Int64 = 3600,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let set = try makeKeySet()
        let error = #expect(throws: JWTError.self, sourceLocation: sourceLocation) {
            try set.verify(token, policy: policy(purpose, lifetime: lifetime), now: now)
        }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }

    @Test("RFC 8037 A.4: the EdDSA JWS of the RFC's key and input has the RFC's signature")
    func rfc8037Signature() throws {
        // The key of RFC 8032 TEST 1, which RFC 8037 appendix A.1 uses.
        let key = try Ed25519PrivateKey(
            seed: try #require(Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")))
        let input = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
        let signature = try key.sign(Array(input.utf8))
        #expect(
            Base64URL.encode(signature)
                == "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg")
    }

    @Test("an access token has the header {alg:EdDSA, typ:at+jwt, kid} and a signature the public key checks")
    func accessTokenHeader() throws {
        let set = try makeKeySet()
        let original = claims(purpose: .oauthAccess, ttl: 900)
        let token = try set.sign(original, for: .oauthAccess)
        let parts = token.split(separator: ".").map(String.init)
        let header = try #require(Base64URL.decode(parts[0]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"EdDSA","typ":"at+jwt","kid":"e1"}"#)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        #expect(
            sharedEd25519Key.publicKey.verify(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
        #expect(try set.verify(token, policy: policy(.oauthAccess), now: now) == original)
        // The other purposes keep typ JWT.
        for purpose in [JWTPurpose.session, .capability] {
            let other = try set.sign(claims(purpose: purpose), for: purpose)
            let otherHeader = try #require(Base64URL.decode(String(other.split(separator: ".")[0])))
            #expect(String(decoding: otherHeader, as: UTF8.self).contains(#""typ":"JWT""#))
        }
    }

    @Test("an access token needs typ at+jwt (any case, application/ allowed); JWT, none or another typ is refused")
    func accessTokenType() throws {
        let payload = claims(purpose: .oauthAccess)
        for typ in ["at+jwt", "AT+JWT", "application/at+jwt", "Application/At+JWT"] {
            let token = try forgeEdDSA(header: #"{"alg":"EdDSA","typ":"\#(typ)","kid":"e1"}"#, payload: payload)
            #expect(try makeKeySet().verify(token, policy: policy(.oauthAccess), now: now).pur == "oauth-access")
        }
        for header in [
            #"{"alg":"EdDSA","kid":"e1"}"#, #"{"alg":"EdDSA","typ":"JWT","kid":"e1"}"#,
            #"{"alg":"EdDSA","typ":"jwt","kid":"e1"}"#, #"{"alg":"EdDSA","typ":"at+jwt+x","kid":"e1"}"#,
            #"{"alg":"EdDSA","typ":"application/jwt","kid":"e1"}"#, #"{"alg":"EdDSA","typ":"at+\u212Awt","kid":"e1"}"#,
            #"{"alg":"EdDSA","typ":["at+jwt"],"kid":"e1"}"#, #"{"alg":"EdDSA","typ":"","kid":"e1"}"#,
        ] {
            try expectRefusal(try forgeEdDSA(header: header, payload: payload), .malformed)
        }
        // The key set never signs an access token with typ JWT.
        let plain = try makeKeySet().sign(payload, algorithm: .edDSA)
        try expectRefusal(plain, .malformed)
    }

    @Test("a token with typ at+jwt is refused where a plain JWT is expected")
    func accessTypeElsewhere() throws {
        let session = forgeHMAC(
            header: #"{"alg":"HS256","typ":"at+jwt","kid":"h1"}"#, payload: claims(purpose: .session),
            secret: hmacSecret)
        try expectRefusal(session, .malformed, purpose: .session)
        let capability = try forgeRS256(
            header: #"{"alg":"RS256","typ":"at+jwt","kid":"r1"}"#, payload: claims(purpose: .capability))
        try expectRefusal(capability, .malformed, purpose: .capability)
    }

    @Test("alg and the key named by kid must agree: EdDSA on an HMAC or RSA kid, HS256 or RS256 on the Ed25519 kid")
    func algorithmKeyMismatch() throws {
        let payload = claims(purpose: .oauthAccess)
        // EdDSA claimed for the HMAC and RSA keys (signed with the Ed25519 key, whose kid it does not name).
        for kid in ["h1", "r1"] {
            let token = try forgeEdDSA(header: #"{"alg":"EdDSA","typ":"at+jwt","kid":"\#(kid)"}"#, payload: payload)
            try expectRefusal(token, .algorithmMismatch)
            let purpose: JWTPurpose = kid == "h1" ? .session : .capability
            let plain = try forgeEdDSA(
                header: #"{"alg":"EdDSA","typ":"JWT","kid":"\#(kid)"}"#, payload: claims(purpose: purpose))
            try expectRefusal(plain, .algorithmMismatch, purpose: purpose)
        }
        // Key confusion: HS256 with the published Ed25519 public key (the JWK's x) as the HMAC secret.
        let x = sharedEd25519Key.publicKey.rawRepresentation
        let confused = forgeHMAC(header: #"{"alg":"HS256","typ":"at+jwt","kid":"e1"}"#, payload: payload, secret: x)
        try expectRefusal(confused, .algorithmMismatch)
        let confusedSession = forgeHMAC(
            header: #"{"alg":"HS256","typ":"JWT","kid":"e1"}"#, payload: claims(purpose: .session), secret: x)
        try expectRefusal(confusedSession, .algorithmMismatch, purpose: .session)
        let rsOnEd = try forgeRS256(
            header: #"{"alg":"RS256","typ":"JWT","kid":"e1"}"#, payload: claims(purpose: .capability))
        try expectRefusal(rsOnEd, .algorithmMismatch, purpose: .capability)
        // Other spellings of the algorithm are not EdDSA (RFC 9864's "Ed25519" included).
        for alg in ["Ed25519", "EDDSA", "eddsa", "none"] {
            let token = try forgeEdDSA(header: #"{"alg":"\#(alg)","typ":"at+jwt","kid":"e1"}"#, payload: payload)
            try expectRefusal(token, .unsupportedAlgorithm)
        }
    }

    @Test("an access token lives at most 900 s, whatever the policy allows; signing refuses a longer one")
    func lifetimeCap() throws {
        let set = try makeKeySet()
        let exact = try set.sign(claims(purpose: .oauthAccess, ttl: 900), for: .oauthAccess)
        #expect(try set.verify(exact, policy: policy(.oauthAccess, lifetime: 3600), now: now).exp == now + 900)
        let signError = #expect(throws: JWTError.self) {
            try set.sign(claims(purpose: .oauthAccess, ttl: 901), for: .oauthAccess)
        }
        #expect(signError?.code == .lifetimeTooLong)
        var noIAT = claims(purpose: .oauthAccess)
        noIAT["iat"] = nil
        #expect(throws: JWTError.self) { try set.sign(noIAT, for: .oauthAccess) }
        // Minted elsewhere with the same key (a header the set would write), 901 s: refused on verification.
        let long = try forgeEdDSA(
            header: #"{"alg":"EdDSA","typ":"at+jwt","kid":"e1"}"#, payload: claims(purpose: .oauthAccess, ttl: 901))
        try expectRefusal(long, .lifetimeTooLong, lifetime: 3600)
        // A policy may be stricter than the purpose.
        try expectRefusal(exact, .lifetimeTooLong, lifetime: 300)
        // Other purposes keep their policy's lifetime only.
        let session = try set.sign(claims(purpose: .session, ttl: 3600), for: .session)
        #expect(try set.verify(session, policy: policy(.session, lifetime: 3600), now: now).pur == "session")
    }

    @Test("another Ed25519 key under the same kid, a tampered payload and a verify-only key")
    func keysAndSignatures() throws {
        let other = try Ed25519PrivateKey.generate()
        let header = #"{"alg":"EdDSA","typ":"at+jwt","kid":"e1"}"#
        try expectRefusal(
            try forgeEdDSA(header: header, payload: claims(purpose: .oauthAccess), key: other), .badSignature)

        let signer = try makeKeySet()
        let token = try signer.sign(claims(purpose: .oauthAccess), for: .oauthAccess)
        let verifier = try JWTKeySet(
            keys: [JWTKey.ed25519(kid: "e1", publicKey: sharedEd25519Key.publicKey)], activeHMAC: nil, activeRSA: nil)
        #expect(try verifier.verify(token, policy: policy(.oauthAccess), now: now).pur == "oauth-access")
        let error = #expect(throws: JWTError.self) {
            try verifier.sign(claims(purpose: .oauthAccess), for: .oauthAccess)
        }
        #expect(error?.code == .noSigningKey)
        #expect(throws: JWTError.self) {
            try JWTKeySet(
                keys: [JWTKey.ed25519(kid: "e1", publicKey: sharedEd25519Key.publicKey)], activeHMAC: nil,
                activeRSA: nil, activeEdDSA: "e1")
        }
        // An Ed25519 key cannot be made the active key of another algorithm, nor another key the EdDSA one.
        let edKey = try JWTKey.ed25519(kid: "e1", privateKey: sharedEd25519Key)
        #expect(throws: JWTError.self) { try JWTKeySet(keys: [edKey], activeHMAC: nil, activeRSA: "e1") }
        let rsaKey = try JWTKey.rsa(kid: "r1", privateKey: sharedRSAKey)
        #expect(throws: JWTError.self) {
            try JWTKeySet(keys: [rsaKey], activeHMAC: nil, activeRSA: nil, activeEdDSA: "r1")
        }
        #expect("\(edKey.material)" == "ed25519Private(redacted)")
        #expect(edKey.algorithm == .edDSA && edKey.canSign && edKey.rsaPublicKey == nil)
    }
}
