import AuthCrypto
import JSON
import JWT
import Testing

@Suite("JWK and JWKS")
struct JWKSTests {
    @Test("RFC 7638 section 3.1 thumbprint example")
    func thumbprint() throws {
        let n = try #require(
            Base64URL.decode(
                "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs"
                    + "tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQ"
                    + "vRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awap"
                    + "JzKnqDKgw"))
        #expect(JWK.rsaThumbprint(modulus: n, exponent: [1, 0, 1]) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("JWKS lists every RSA key with kty, kid, alg, use, n, e, the active key first, and no HMAC key")
    func shape() throws {
        let retired = try RSAPrivateKey.generate()
        let set = try JWTKeySet(
            keys: [
                JWTKey.rsa(kid: "old", privateKey: retired), JWTKey.hmac(kid: "h1", secret: hmacSecret),
                JWTKey.rsa(kid: "r1", privateKey: sharedRSAKey),
            ], activeHMAC: "h1", activeRSA: "r1")
        let document = try JSONValue.parse(set.jwksJSON())
        let keys = try #require(document["keys"]?.arrayValue)
        #expect(keys.count == 2)
        #expect(keys.map { $0["kid"]?.stringValue } == ["r1", "old"])
        let first = try #require(keys.first)
        #expect(first.objectValue?.map(\.0) == ["kty", "kid", "alg", "use", "n", "e"])
        #expect(first["kty"] == "RSA")
        #expect(first["alg"] == "RS256")
        #expect(first["use"] == "sig")
        #expect(first["e"] == "AQAB")
        #expect(first["n"]?.stringValue.flatMap(Base64URL.decode) == sharedRSAKey.publicKey.modulus)
        let text = String(decoding: set.jwksJSON(), as: UTF8.self)
        #expect(!text.contains(#""kid":"h1""#))
        #expect(!text.contains("\"d\""))
    }

    @Test("an RS256 token verifies with a key rebuilt from the JWKS n and e via openssl-free path")
    func verifyFromPublished() throws {
        let set = try makeKeySet()
        let token = try set.sign(claims(), algorithm: .rs256)
        let published = try #require(try JSONValue.parse(set.jwksJSON())["keys"]?.arrayValue?.first)
        let n = try #require(published["n"]?.stringValue.flatMap(Base64URL.decode))
        let e = try #require(published["e"]?.stringValue.flatMap(Base64URL.decode))
        #expect(JWK.rsaThumbprint(modulus: n, exponent: e) == JWK.thumbprint(of: sharedRSAKey.publicKey))
        let parts = token.split(separator: ".").map(String.init)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(sharedRSAKey.publicKey.verifySHA256(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
    }
}
