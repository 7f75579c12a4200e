import AuthCrypto
import JSON
import JWT
import Testing

/// ES256: ID tokens of relying parties that register it, published as EC keys in the JWKS.
@Suite("ES256 and EC keys in the JWKS")
struct ES256Tests {
    @Test("RFC 7638 thumbprint of RFC 7515 A.3's P-256 key")
    func thumbprint() throws {
        let key = try P256PublicKey(
            x: try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU")),
            y: try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")))
        // SHA-256 of {"crv":"P-256","kty":"EC","x":"f83O...","y":"x_FE..."}, computed with Python's hashlib.
        #expect(JWK.thumbprint(of: key) == "oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U")
    }

    @Test("the JWKS lists P-256 keys after the others (kty, kid, alg, use, crv, x, y); a verifier of the JWKS checks ES256")
    func published() throws {
        let set = try makeKeySet()
        let keys = try #require(try JSONValue.parse(set.jwksJSON())["keys"]?.arrayValue)
        #expect(keys.map { $0["kid"]?.stringValue } == ["r1", "e1", "p1"])
        let ec = keys[2]
        #expect(ec.objectValue?.map(\.0) == ["kty", "kid", "alg", "use", "crv", "x", "y"])
        #expect(ec["kty"] == "EC")
        #expect(ec["crv"] == "P-256")
        #expect(ec["alg"] == "ES256")
        #expect(ec["x"]?.stringValue.flatMap(Base64URL.decode) == sharedP256Key.publicKey.x)
        #expect(ec["y"]?.stringValue.flatMap(Base64URL.decode) == sharedP256Key.publicKey.y)
        #expect(!String(decoding: set.jwksJSON(), as: UTF8.self).contains("\"d\""))

        let token = try set.sign(claims(), algorithm: .es256)
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","typ":"JWT","kid":"p1"}"#)
        #expect(try #require(Base64URL.decode(String(token.split(separator: ".")[2]))).count == 64)
        let verifier = try PublishedKeySet(jwks: set.jwksJSON())
        #expect(try verifier.verify(token)["pur"]?.stringValue == "challenge")
        var tampered = Array(token.utf8)
        let index = tampered.count - 3
        tampered[index] = tampered[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: JWTError.self) { try verifier.verify(String(decoding: tampered, as: UTF8.self)) }
    }

    @Test("an ES256 kid is refused for a purpose of another algorithm")
    func notForPurposes() throws {
        let set = try makeKeySet()
        let forged = try forgeES256(
            header: #"{"alg":"ES256","typ":"JWT","kid":"p1"}"#, payload: claims(purpose: .session))
        let error = #expect(throws: JWTError.self) { try set.verify(forged, policy: policy(.session), now: now) }
        #expect(error?.code == .wrongAlgorithm)
    }
}
