import AuthCrypto
import JSON
import JWT
import Testing

/// Other issuers' keys (an identity provider's JWKS) and the signature check of the tokens they sign: the algorithm
/// comes from the key, a kid finds its keys, a token without one tries each key of its algorithm.
@Suite("Published key sets: JWKS parsing and foreign JWS verification")
struct PublishedKeySetTests {
    static let a3Token =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290"
        + "Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let a3JWK: JSONValue = [
        "kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
        "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
    ]

    static func jwks(_ keys: [JSONValue]) -> [UInt8] { JSONValue.object([("keys", .array(keys))]).serialize() }

    /// The shared RSA key as `r1` and the shared Ed25519 key as `e1`.
    static func rsaAndEd25519() throws -> PublishedKeySet {
        try PublishedKeySet(
            jwks: jwks([
                JWK.rsaPublicJWK(sharedRSAKey.publicKey, kid: "r1"),
                JWK.okpPublicJWK(sharedEd25519Key.publicKey, kid: "e1"),
            ]))
    }

    static func rsaJWK(_ key: RSAPrivateKey, kid: String?) -> JSONValue {
        var jwk = JWK.rsaPublicJWK(key.publicKey, kid: kid ?? "")
        if kid == nil { jwk = .object(jwk.objectValue!.filter { $0.0 != "kid" }) }
        return jwk
    }

    @Test("RFC 7515 A.3's ES256 token verifies with its key published without a kid")
    func rfc7515A3() throws {
        let set = try PublishedKeySet(jwks: Self.jwks([Self.a3JWK]))
        #expect(set.keys.map(\.algorithm) == [.es256])
        let claims = try set.verify(Self.a3Token)
        #expect(claims.iss == "joe" && claims.exp == 1_300_819_380)
    }

    @Test("keys this server cannot verify with are skipped; the rest keep their order")
    func skipsUnusableKeys() throws {
        let other = try RSAPrivateKey.generate()
        let document = Self.jwks([
            ["kty": "oct", "k": "c2VjcmV0", "kid": "hmac"],
            .object(
                JWK.rsaPublicJWK(sharedRSAKey.publicKey, kid: "enc").objectValue!.map {
                    $0.0 == "use" ? ("use", "enc") : $0
                }),
            .object(
                JWK.rsaPublicJWK(other.publicKey, kid: "ps").objectValue!.map {
                    $0.0 == "alg" ? ("alg", "PS256") : $0
                }),
            ["kty": "EC", "crv": "P-384", "x": "AA", "y": "AA", "kid": "p384"],
            ["kty": "RSA", "n": "AQAB", "e": "AQAB", "kid": "short"],
            ["kty": "RSA", "n": "not base64!", "e": "AQAB", "kid": "bad"],
            .object(JWK.rsaPublicJWK(other.publicKey, kid: "noverify").objectValue! + [("key_ops", ["encrypt"])]),
            JWK.rsaPublicJWK(sharedRSAKey.publicKey, kid: "r1"), Self.a3JWK,
            JWK.okpPublicJWK(sharedEd25519Key.publicKey, kid: "e1"), "not an object",
        ])
        let set = try PublishedKeySet(jwks: document)
        #expect(set.keys.map(\.kid) == ["r1", nil, "e1"])
        #expect(set.keys.map(\.algorithm) == [.rs256, .es256, .edDSA])
    }

    @Test(
        "a document that is not a JSON object with a keys array is refused",
        arguments: ["[]", "{}", "{\"keys\":{}}", "nope"])
    func badDocument(text: String) {
        let error = #expect(throws: JWTError.self) { try PublishedKeySet(jwks: Array(text.utf8)) }
        #expect(error?.code == .malformed)
    }

    @Test("a kid finds its key; RS256 and EdDSA tokens verify and give their claims")
    func kidFindsKey() throws {
        let set = try Self.rsaAndEd25519()
        let rs = try forgeRS256(header: #"{"alg":"RS256","kid":"r1","typ":"JWT"}"#, payload: claims())
        #expect(try set.verify(rs).iss == issuer)
        let ed = try forgeEdDSA(header: #"{"alg":"EdDSA","kid":"e1"}"#, payload: claims())
        #expect(try set.verify(ed).iss == issuer)
    }

    @Test("without a kid each key of the token's algorithm is tried")
    func noKidTriesEachKey() throws {
        let first = try RSAPrivateKey.generate()
        let set = try PublishedKeySet(
            jwks: Self.jwks([Self.rsaJWK(first, kid: nil), Self.rsaJWK(sharedRSAKey, kid: "r1")]))
        let token = try forgeRS256(header: #"{"alg":"RS256"}"#, payload: claims())
        #expect(try set.verify(token).iss == issuer)
        let edOnly = try PublishedKeySet(jwks: Self.jwks([JWK.okpPublicJWK(sharedEd25519Key.publicKey, kid: "e1")]))
        #expect(throws: JWTError(.unknownKey, "no published key of this algorithm")) { try edOnly.verify(token) }
    }

    @Test("an unknown kid is unknownKey (the caller refetches the JWKS), even when another key would verify")
    func unknownKid() throws {
        let set = try PublishedKeySet(jwks: Self.jwks([JWK.rsaPublicJWK(sharedRSAKey.publicKey, kid: "r1")]))
        let token = try forgeRS256(header: #"{"alg":"RS256","kid":"r2"}"#, payload: claims())
        let error = #expect(throws: JWTError.self) { try set.verify(token) }
        #expect(error?.code == .unknownKey)
        // A kid spelled with a canonically equivalent character is another kid.
        let kelvin = try PublishedKeySet(jwks: Self.jwks([JWK.rsaPublicJWK(sharedRSAKey.publicKey, kid: "K1")]))
        let spoofed = try forgeRS256(header: "{\"alg\":\"RS256\",\"kid\":\"\u{212A}1\"}", payload: claims())
        #expect((#expect(throws: JWTError.self) { try kelvin.verify(spoofed) })?.code == .unknownKey)
    }

    @Test("alg none, HS256 keyed with the RSA public key and unknown algorithms are refused before any key")
    func forgedAlgorithms() throws {
        let set = try PublishedKeySet(jwks: Self.jwks([JWK.rsaPublicJWK(sharedRSAKey.publicKey, kid: "r1")]))
        let none = forgeUnsigned(header: #"{"alg":"none","kid":"r1"}"#, payload: claims(), signature: "")
        #expect((#expect(throws: JWTError.self) { try set.verify(none) })?.code == .badSignature)
        let noneSigned = forgeUnsigned(header: #"{"alg":"none","kid":"r1"}"#, payload: claims(), signature: "AA")
        #expect((#expect(throws: JWTError.self) { try set.verify(noneSigned) })?.code == .unsupportedAlgorithm)
        let hs = forgeHMAC(
            header: #"{"alg":"HS256","kid":"r1"}"#, payload: claims(), secret: Array(sharedRSAKey.publicKey.pem.utf8))
        #expect((#expect(throws: JWTError.self) { try set.verify(hs) })?.code == .unsupportedAlgorithm)
        let ps = try forgeRS256(header: #"{"alg":"PS256","kid":"r1"}"#, payload: claims())
        #expect((#expect(throws: JWTError.self) { try set.verify(ps) })?.code == .unsupportedAlgorithm)
    }

    @Test("a kid whose key is of another algorithm is algorithmMismatch; a bad signature, crit and bad headers refused")
    func mismatchesAndHeaders() throws {
        let set = try Self.rsaAndEd25519()
        let asEdDSA = try forgeEdDSA(header: #"{"alg":"EdDSA","kid":"r1"}"#, payload: claims())
        #expect((#expect(throws: JWTError.self) { try set.verify(asEdDSA) })?.code == .algorithmMismatch)
        let other = try RSAPrivateKey.generate()
        let wrongKey = try forgeRS256(header: #"{"alg":"RS256","kid":"r1"}"#, payload: claims(), key: other)
        #expect((#expect(throws: JWTError.self) { try set.verify(wrongKey) })?.code == .badSignature)
        let crit = try forgeRS256(header: #"{"alg":"RS256","kid":"r1","crit":["exp"]}"#, payload: claims())
        #expect((#expect(throws: JWTError.self) { try set.verify(crit) })?.code == .criticalHeader)
        let numericKid = try forgeRS256(header: #"{"alg":"RS256","kid":1}"#, payload: claims())
        #expect((#expect(throws: JWTError.self) { try set.verify(numericKid) })?.code == .malformed)
        // A key carried in the token itself is never used.
        let embedded = try forgeRS256(
            header: #"{"alg":"RS256","kid":"x","jwk":{"kty":"RSA"},"jku":"https://evil.example/jwks"}"#,
            payload: claims(), key: other)
        #expect((#expect(throws: JWTError.self) { try set.verify(embedded) })?.code == .unknownKey)
        #expect((#expect(throws: JWTError.self) { try set.verify("a.b") })?.code == .malformed)
        let long = String(repeating: "a", count: PublishedKeySet.maximumTokenLength + 1)
        #expect((#expect(throws: JWTError.self) { try set.verify(long) })?.code == .malformed)
    }
}
