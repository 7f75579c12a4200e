import AuthCrypto
import Testing

/// Public keys built from their parameters (COSE and JWK carry them so): P-256 from x and y, RSA from n and e.
@Suite("Public keys from their components")
struct PublicKeyComponentsTests {
    static func hex(_ text: String) -> [UInt8] { Hex.decode(text)! }

    /// RFC 6979 appendix A.2.5: the P-256 public key, and the signature with SHA-256 of "sample" (r, s).
    static let x = hex("60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6")
    static let y = hex("7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")
    static let r = hex("efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716")
    static let s = hex("f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8")

    /// The DER `Ecdsa-Sig-Value` of (r, s): each integer with a 0x00 byte before a high bit.
    static func der(_ r: [UInt8], _ s: [UInt8]) -> [UInt8] {
        func integer(_ bytes: [UInt8]) -> [UInt8] {
            let body = bytes[0] & 0x80 != 0 ? [0] + bytes : bytes
            return [0x02, UInt8(body.count)] + body
        }
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }

    @Test("P-256: RFC 6979's signature of \"sample\" verifies in DER; changed, raw or for another message it does not")
    func p256() throws {
        let key = try P256PublicKey(x: Self.x, y: Self.y)
        let signature = Self.der(Self.r, Self.s)
        #expect(key.verifySHA256(derSignature: signature, message: Array("sample".utf8)))
        #expect(!key.verifySHA256(derSignature: signature, message: Array("test".utf8)))
        #expect(!key.verifySHA256(derSignature: Self.r + Self.s, message: Array("sample".utf8)))
        var changed = signature
        changed[changed.count - 1] ^= 1
        #expect(!key.verifySHA256(derSignature: changed, message: Array("sample".utf8)))
        #expect(!key.verifySHA256(derSignature: [], message: Array("sample".utf8)))
    }

    @Test("P-256: a point off the curve, or coordinates of another length, are refused")
    func p256Refusals() {
        var y = Self.y
        y[31] ^= 1
        #expect(throws: CryptoError.self) { try P256PublicKey(x: Self.x, y: y) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x: Array(Self.x.dropFirst()), y: Self.y) }
        #expect(throws: CryptoError.self) {
            try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("RSA: a key rebuilt from its modulus and exponent verifies the private key's signature")
    func rsa() throws {
        let privateKey = try RSAPrivateKey.generate(bits: 2048)
        let message = Array("components".utf8)
        let signature = try privateKey.signSHA256(message)
        let rebuilt = try RSAPublicKey(modulus: privateKey.publicKey.modulus, exponent: privateKey.publicKey.exponent)
        #expect(rebuilt.verifySHA256(signature: signature, message: message))
        #expect(rebuilt.pem == privateKey.publicKey.pem)
        #expect(throws: CryptoError.self) {
            try RSAPublicKey(modulus: Array(privateKey.publicKey.modulus.prefix(128)), exponent: [1, 0, 1])
        }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) }
    }
}
