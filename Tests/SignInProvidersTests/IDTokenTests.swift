import AuthCrypto
import JSON
import JWT
import SignInProviders
import Testing

/// The id_token checks (issue 54 item 7) with a local key set: RS256, ES256 (r || s, never DER) and EdDSA; `alg:
/// none`, HS256 keyed with the RSA public key, `aud` without the client, `iat` in the future, an expired token and a
/// wrong nonce refused; an unknown kid asks for a refetch.
@Suite("id_token verification")
struct IDTokenTests {
    static let now: Int64 = 1_800_000_000
    static let issuer = "https://idp.example/realms/test"
    static let clientID = "postern-client"
    static let nonce = "n-0S6_WzA2Mj"
    static let expectation = IDTokenExpectation(issuer: issuer, clientID: clientID, nonce: nonce)

    /// Claims a provider would sign for this login, with `changes` applied (nil removes a claim).
    static func claims(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("sub", "248289761001"), ("aud", .string(clientID)), ("exp", .int(now + 300)),
            ("iat", .int(now)), ("nonce", .string(nonce)), ("email", "jane@example.com"), ("email_verified", true),
            ("name", "Jane Doe"),
        ]
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            members.removeAll { $0.0 == name }
            if let value { members.append((name, value)) }
        }
        return .object(members)
    }

    static func verify(_ token: String) throws(JWTError) -> IDTokenClaims {
        let keys: PublishedKeySet
        do { keys = try TestSigner.keySet() } catch { fatalError("the test key set: \(error)") }
        return try IDToken.verify(token, keys: keys, expecting: expectation, now: now)
    }

    static func refusal(_ token: String) -> JWTError.Code? {
        (#expect(throws: JWTError.self) { try verify(token) })?.code
    }

    @Test("a token signed with each algorithm verifies, with or without a kid, and gives who signed in")
    func accepted() throws {
        for (signer, kid) in [(TestSigner.rs256, "rsa1"), (.es256, "ec1"), (.edDSA, "ed1")] {
            for kid in [kid, nil] {
                let verified = try Self.verify(try signer.token(kid: kid, claims: Self.claims()))
                #expect(verified.issuer == Self.issuer && verified.subject == "248289761001")
                #expect(verified.email == "jane@example.com" && verified.emailVerified && verified.name == "Jane Doe")
            }
        }
    }

    @Test("alg none and HS256 keyed with the RSA public key are refused")
    func forgedAlgorithms() throws {
        let payload = Base64URL.encode(Self.claims().serialize())
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"rsa1"}"#.utf8)) + "." + payload + ".AA"
        #expect(Self.refusal(none) == .unsupportedAlgorithm)
        #expect(Self.refusal(Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + payload + ".") == .badSignature)
        let pem = Array(TestSigner.rsaKey.publicKey.pem.utf8)
        let hs256 = TestSigner(
            algorithm: "HS256", jwk: TestSigner.rs256.jwk,
            sign: { HMACSHA256.authenticationCode(key: pem, message: $0) })
        #expect(Self.refusal(try hs256.token(kid: "rsa1", claims: Self.claims())) == .unsupportedAlgorithm)
        #expect(Self.refusal(try hs256.token(kid: nil, claims: Self.claims())) == .unsupportedAlgorithm)
    }

    @Test("ES256 is r || s: the same key's DER signature is refused")
    func es256RawNotDER() throws {
        #expect(
            try Self.verify(try TestSigner.es256.token(kid: "ec1", claims: Self.claims())).subject == "248289761001")
        #expect(Self.refusal(try TestSigner.es256DER.token(kid: "ec1", claims: Self.claims())) == .badSignature)
    }

    @Test("a key of another algorithm under the token's kid is a mismatch; a changed payload is a bad signature")
    func badSignatures() throws {
        #expect(Self.refusal(try TestSigner.edDSA.token(kid: "rsa1", claims: Self.claims())) == .algorithmMismatch)
        let token = try TestSigner.rs256.token(kid: "rsa1", claims: Self.claims())
        let parts = token.split(separator: ".")
        let other = Base64URL.encode(Self.claims(["sub": "attacker"]).serialize())
        #expect(Self.refusal(parts[0] + "." + other + "." + parts[2]) == .badSignature)
    }

    @Test("an unknown kid asks for the JWKS again")
    func unknownKid() throws {
        #expect(Self.refusal(try TestSigner.rs256.token(kid: "rotated", claims: Self.claims())) == .unknownKey)
    }

    @Test(
        "each claim check refuses with its code",
        arguments: [
            (["iss": .string(issuer + "/")], JWTError.Code.wrongIssuer), (["iss": nil], .missingClaim),
            (["aud": "another-client"], .wrongAudience), (["aud": ["a", "b"]], .wrongAudience),
            (["aud": nil], .missingClaim), (["aud": 7], .malformed), (["aud": [.string(clientID), 7]], .malformed),
            (["aud": [.string(clientID), "other"]], .wrongAuthorizedParty),
            (["aud": [.string(clientID), "other"], "azp": "other"], .wrongAuthorizedParty),
            (["azp": "other"], .wrongAuthorizedParty),
            (["iat": .int(now + 61)], .notYetValid), (["iat": nil], .missingClaim),
            (["nbf": .int(now + 61)], .notYetValid),
            (["exp": .int(now - 60)], .expired), (["exp": nil], .missingClaim), (["exp": "soon"], .malformed),
            (["nonce": "another"], .wrongNonce), (["nonce": .string(nonce + "x")], .wrongNonce),
            (["nonce": nil], .missingClaim), (["nonce": 1], .wrongNonce),
            (["sub": nil], .missingClaim), (["sub": ""], .malformed),
            (["sub": .string(String(repeating: "s", count: 256))], .malformed),
        ] as [([String: JSONValue?], JWTError.Code)])
    func refusedClaims(changes: [String: JSONValue?], code: JWTError.Code) throws {
        #expect(Self.refusal(try TestSigner.rs256.token(kid: "rsa1", claims: Self.claims(changes))) == code)
    }

    @Test(
        "within the 60 s skew, at the edges, and with azp naming the client, the token is taken",
        arguments: [
            ["iat": .int(now + 60)], ["exp": .int(now - 59)], ["nbf": .int(now + 60)], ["exp": 1_800_000_100.5],
            ["aud": [.string(clientID), "other"], "azp": .string(clientID)], ["aud": [.string(clientID)]],
            ["azp": .string(clientID)],
        ] as [[String: JSONValue?]])
    func acceptedEdges(changes: [String: JSONValue?]) throws {
        #expect(
            try Self.verify(try TestSigner.rs256.token(kid: "rsa1", claims: Self.claims(changes))).subject
                == "248289761001")
    }

    @Test("email_verified counts only as the JSON boolean true")
    func emailVerified() throws {
        for value: JSONValue? in ["true", false, 1, nil] {
            let token = try TestSigner.rs256.token(kid: "rsa1", claims: Self.claims(["email_verified": value]))
            #expect(try !Self.verify(token).emailVerified)
        }
    }

    @Test("an empty expected nonce never matches")
    func emptyNonce() throws {
        let token = try TestSigner.rs256.token(kid: "rsa1", claims: Self.claims(["nonce": ""]))
        let expectation = IDTokenExpectation(issuer: Self.issuer, clientID: Self.clientID, nonce: "")
        let error = #expect(throws: JWTError.self) {
            try IDToken.verify(token, keys: try TestSigner.keySet(), expecting: expectation, now: Self.now)
        }
        #expect(error?.code == .wrongNonce)
    }
}
