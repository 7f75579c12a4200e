import AuthCrypto
import Testing

/// ES256 signing keys: the RFC 7515 appendix A.3 key read from PKCS#8 PEM, signatures in the JWS form `r || s`.
@Suite("P-256 private keys (ES256)")
struct P256PrivateKeyTests {
    /// RFC 7515 appendix A.3's key (d = jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI) as PKCS#8 PEM, written by Python's
    /// `cryptography` (an implementation independent of the code under test).
    static let rfc7515PEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgjpsQnnGQmL+YBIff
        H1136cspYG6+0iY7X1fCE9+E9LKhRANCAAR/zc4ncPbEXUGDy+5v20t7WAczNXvp
        7xO6z248e9FURcfxRM0bvZt+hyzf7bnuufSzaV1uqQskrYpGIyiFiOWt
        -----END PRIVATE KEY-----
        """
    /// RFC 7515 A.3.1: the signing input and the signature the RFC shows (ECDSA is randomized: it cannot be made
    /// again, only checked).
    static let rfc7515Input =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let rfc7515Signature =
        "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    @Test("RFC 7515 A.3: the key's public point is the RFC's x and y, and the RFC's signature verifies with it")
    func rfc7515() throws {
        let key = try P256PrivateKey(pem: Self.rfc7515PEM)
        #expect(Base64URL.encode(key.publicKey.x) == "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU")
        #expect(Base64URL.encode(key.publicKey.y) == "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")
        let signature = try #require(Base64URL.decode(Self.rfc7515Signature))
        #expect(key.publicKey.verify(signature: signature, message: utf8(Self.rfc7515Input)))
    }

    @Test("a signature is 64 bytes r || s that the public key checks; another message or a changed bit does not")
    func signs() throws {
        let key = try P256PrivateKey(pem: Self.rfc7515PEM)
        let signature = try key.sign(utf8(Self.rfc7515Input))
        #expect(signature.count == P256PublicKey.signatureByteCount)
        #expect(key.publicKey.verify(signature: signature, message: utf8(Self.rfc7515Input)))
        #expect(!key.publicKey.verify(signature: signature, message: utf8(Self.rfc7515Input + ".")))
        var changed = signature
        changed[5] ^= 0x10
        #expect(!key.publicKey.verify(signature: changed, message: utf8(Self.rfc7515Input)))
    }

    @Test("a generated key round-trips through PKCS#8 PEM; an Ed25519 or RSA key is not a P-256 key")
    func pem() throws {
        let key = try P256PrivateKey.generate()
        let again = try P256PrivateKey(pem: try key.pkcs8PEM)
        #expect(again.publicKey.x == key.publicKey.x && again.publicKey.y == key.publicKey.y)
        #expect(try again.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let message = utf8("round trip")
        #expect(key.publicKey.verify(signature: try again.sign(message), message: message))
        #expect(throws: CryptoError.self) { try P256PrivateKey(pem: try Ed25519PrivateKey.generate().pkcs8PEM) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----") }
    }
}
