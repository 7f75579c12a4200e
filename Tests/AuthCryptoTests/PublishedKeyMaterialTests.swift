import Testing

@testable import AuthCrypto

/// The public keys other issuers publish as JWK members: P-256 from `x` and `y` (ES256), RSA from `n` and `e`.
@Suite("Published key material: P-256 (ES256, r || s) and RSA from n and e")
struct PublishedKeyMaterialTests {
    /// RFC 7515 appendix A.3: the P-256 key and the ES256 JWS it signed.
    static let a3X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let a3Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let a3Input =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290"
        + "Ijp0cnVlfQ"
    static let a3Signature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    static func a3Key() throws -> P256PublicKey {
        try P256PublicKey(x: try #require(Base64URL.decode(a3X)), y: try #require(Base64URL.decode(a3Y)))
    }

    @Test("RFC 7515 A.3's ES256 signature verifies; a changed bit, message or length does not")
    func rfc7515A3() throws {
        let key = try Self.a3Key()
        let signature = try #require(Base64URL.decode(Self.a3Signature))
        let message = Array(Self.a3Input.utf8)
        #expect(key.verify(signature: signature, message: message))
        var tampered = signature
        tampered[40] ^= 1
        #expect(!key.verify(signature: tampered, message: message))
        #expect(!key.verify(signature: signature, message: message + [0]))
        #expect(!key.verify(signature: Array(signature.dropLast()), message: message))
        #expect(!key.verify(signature: [], message: message))
    }

    @Test("the same signature in DER, as OpenSSL writes it, is refused: JWS takes r || s only")
    func derRefused() throws {
        let key = try Self.a3Key()
        let raw = try #require(Base64URL.decode(Self.a3Signature))
        let der = P256PublicKey.derSignature(raw: raw)
        #expect(der.count != 64 && der.first == 0x30)
        #expect(!key.verify(signature: der, message: Array(Self.a3Input.utf8)))
    }

    @Test("coordinates of the wrong length or off the curve are refused")
    func badPoints() throws {
        let x = try #require(Base64URL.decode(Self.a3X))
        let y = try #require(Base64URL.decode(Self.a3Y))
        #expect(throws: CryptoError.self) { try P256PublicKey(x: Array(x.dropFirst()), y: y) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x: x, y: y + [0]) }
        var offCurve = y
        offCurve[31] ^= 1
        #expect(throws: CryptoError.self) { try P256PublicKey(x: x, y: offCurve) }
        #expect(throws: CryptoError.self) {
            try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("an RSA key from its n and e is the same key, and checks its RS256 signatures")
    func rsaFromComponents() throws {
        let privateKey = try RSAPrivateKey.generate()
        let published = try RSAPublicKey(
            modulus: [0] + privateKey.publicKey.modulus, exponent: privateKey.publicKey.exponent)
        #expect(published.pem == privateKey.publicKey.pem && published.bits == 2048)
        let message = Array("header.payload".utf8)
        #expect(published.verifySHA256(signature: try privateKey.signSHA256(message), message: message))
    }

    @Test("RSA components under 2048 bits, empty, or with a long exponent are refused")
    func rsaRefused() throws {
        let modulus = try RSAPrivateKey.generate().publicKey.modulus
        #expect(throws: CryptoError.self) {
            try RSAPublicKey(modulus: Array(modulus.prefix(128)), exponent: [1, 0, 1])
        }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) }
        #expect(throws: CryptoError.self) {
            try RSAPublicKey(modulus: modulus, exponent: [UInt8](repeating: 1, count: 9))
        }
    }
}
