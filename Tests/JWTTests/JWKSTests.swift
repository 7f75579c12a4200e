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

    @Test("RFC 8037 A.3 thumbprint of the Ed25519 key of RFC 8032 TEST 1")
    func okpThumbprint() throws {
        let x = try #require(Base64URL.decode("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"))
        #expect(JWK.okpThumbprint(x: x) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
        let seed = try #require(Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        let key = try Ed25519PrivateKey(seed: seed)
        #expect(key.publicKey.rawRepresentation == x)
        #expect(JWK.thumbprint(of: key.publicKey) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
    }

    @Test("JWKS lists RSA keys, then Ed25519 keys as OKP (kty, kid, alg, use, crv, x), each kind's active key first")
    func okpShape() throws {
        let retiredEd = try Ed25519PrivateKey.generate()
        let set = try JWTKeySet(
            keys: [
                JWTKey.ed25519(kid: "e-old", privateKey: retiredEd), JWTKey.hmac(kid: "h1", secret: hmacSecret),
                JWTKey.ed25519(kid: "e1", privateKey: sharedEd25519Key),
                JWTKey.rsa(kid: "r1", privateKey: sharedRSAKey),
            ], activeHMAC: "h1", activeRSA: "r1", activeEdDSA: "e1")
        let keys = try #require(try JSONValue.parse(set.jwksJSON())["keys"]?.arrayValue)
        #expect(keys.map { $0["kid"]?.stringValue } == ["r1", "e1", "e-old"])
        let okp = keys[1]
        #expect(okp.objectValue?.map(\.0) == ["kty", "kid", "alg", "use", "crv", "x"])
        #expect(okp["kty"] == "OKP")
        #expect(okp["crv"] == "Ed25519")
        #expect(okp["alg"] == "EdDSA")
        #expect(okp["use"] == "sig")
        #expect(okp["x"]?.stringValue.flatMap(Base64URL.decode) == sharedEd25519Key.publicKey.rawRepresentation)
        #expect(keys[2]["x"]?.stringValue.flatMap(Base64URL.decode) == retiredEd.publicKey.rawRepresentation)
        let text = String(decoding: set.jwksJSON(), as: UTF8.self)
        #expect(!text.contains(#""kid":"h1""#))
        #expect(!text.contains("\"d\""))

        // A verifier that knows only the published x checks an access token.
        let token = try set.sign(claims(purpose: .oauthAccess), for: .oauthAccess)
        let x = try #require(okp["x"]?.stringValue.flatMap(Base64URL.decode))
        let verifier = try JWTKeySet(
            keys: [JWTKey.ed25519(kid: "e1", publicKey: Ed25519PublicKey(rawRepresentation: x))], activeHMAC: nil,
            activeRSA: nil)
        #expect(try verifier.verify(token, policy: policy(.oauthAccess), now: now).pur == "oauth-access")
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
        #expect(
            sharedRSAKey.publicKey.verifySHA256(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
    }
}
