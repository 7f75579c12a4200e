import AuthCrypto
import Foundation
import JSON
import JWT
import PosternTestSupport

/// Signs test id_tokens as a provider would: a header and claims of the test's choosing, signed by one of the local
/// keys below, published in a JWKS the verifier is given.
struct TestSigner: Sendable {
    /// The header's `alg`.
    let algorithm: String
    /// The key's public JWK, `kid` included.
    let jwk: JSONValue
    /// Signs the signing input.
    let sign: @Sendable ([UInt8]) throws -> [UInt8]

    /// `header.payload.signature` for `header` and `claims`, signed by this key.
    func token(header: JSONValue, claims: JSONValue) throws -> String {
        let input = Base64URL.encode(header.serialize()) + "." + Base64URL.encode(claims.serialize())
        return input + "." + Base64URL.encode(try sign(Array(input.utf8)))
    }

    /// A token whose header is `{"alg":<algorithm>,"kid":<kid>}` (no kid when nil).
    func token(kid: String?, claims: JSONValue) throws -> String {
        var header: [(String, JSONValue)] = [("alg", .string(algorithm))]
        if let kid { header.append(("kid", .string(kid))) }
        return try token(header: .object(header), claims: claims)
    }

    /// One RSA key for the process (RS256, kid `rsa1`).
    static let rsaKey: RSAPrivateKey = {
        do { return try RSAPrivateKey.generate() } catch { fatalError("RSA key generation failed: \(error)") }
    }()
    /// One Ed25519 key for the process (EdDSA, kid `ed1`).
    static let ed25519Key: Ed25519PrivateKey = {
        do { return try Ed25519PrivateKey.generate() } catch { fatalError("Ed25519 key generation failed: \(error)") }
    }()
    /// One P-256 key made by `openssl` (ES256, kid `ec1`).
    static let p256Key: OpenSSLP256Key = {
        do { return try OpenSSLP256Key() } catch { fatalError("openssl P-256 key generation failed: \(error)") }
    }()

    static let rs256 = TestSigner(
        algorithm: "RS256", jwk: JWK.rsaPublicJWK(rsaKey.publicKey, kid: "rsa1"), sign: { try rsaKey.signSHA256($0) })
    static let edDSA = TestSigner(
        algorithm: "EdDSA", jwk: JWK.okpPublicJWK(ed25519Key.publicKey, kid: "ed1"), sign: { try ed25519Key.sign($0) })
    static let es256 = TestSigner(
        algorithm: "ES256",
        jwk: [
            "kty": "EC", "crv": "P-256", "kid": "ec1", "alg": "ES256", "use": "sig",
            "x": .string(Base64URL.encode(p256Key.x)), "y": .string(Base64URL.encode(p256Key.y)),
        ], sign: { try p256Key.signRaw($0) })
    /// The same P-256 key signing as OpenSSL does, in DER: what a provider that forgot JWS's `r || s` would send.
    static let es256DER = TestSigner(algorithm: "ES256", jwk: es256.jwk, sign: { try p256Key.signDER($0) })

    /// The JWKS of the three keys.
    static func keySet() throws -> PublishedKeySet {
        try PublishedKeySet(jwks: JSONValue.object([("keys", [rs256.jwk, es256.jwk, edDSA.jwk])]).serialize())
    }
}

/// A P-256 key made and used by the `openssl` command in a temporary directory: its coordinates from the DER
/// SubjectPublicKeyInfo (whose last 64 bytes are `x || y`), its signatures from `openssl dgst -sha256 -sign` (DER),
/// converted to JWS's `r || s` by ``signRaw(_:)``.
final class OpenSSLP256Key: Sendable {
    let directory: String
    let x: [UInt8]
    let y: [UInt8]

    init() throws {
        directory = NSTemporaryDirectory() + "postern-oidc-ec-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.openssl(
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"], in: directory)
        try Self.openssl(["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "pub.der"], in: directory)
        let spki = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/pub.der")))
        let point = spki.suffix(65)
        guard point.first == 0x04 else { throw POSIXError(.EINVAL) }
        x = Array(point.dropFirst().prefix(32))
        y = Array(point.suffix(32))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// OpenSSL's DER `ECDSA-Sig-Value` of `message`.
    func signDER(_ message: [UInt8]) throws -> [UInt8] {
        let name = UUID().uuidString
        try Data(message).write(to: URL(fileURLWithPath: "\(directory)/\(name).msg"))
        try Self.openssl(["dgst", "-sha256", "-sign", "key.pem", "-out", "\(name).sig", "\(name).msg"], in: directory)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).sig")))
    }

    /// The signature as JWS writes it: `r || s`, each left-padded to 32 bytes.
    func signRaw(_ message: [UInt8]) throws -> [UInt8] {
        let der = try signDER(message)
        // SEQUENCE (short length) { INTEGER r, INTEGER s }.
        guard der.count > 2, der[0] == 0x30 else { throw POSIXError(.EINVAL) }
        var index = 2
        var raw: [UInt8] = []
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { throw POSIXError(.EINVAL) }
            let length = Int(der[index + 1])
            let value = der[(index + 2)..<(index + 2 + length)].drop { $0 == 0 }
            raw += [UInt8](repeating: 0, count: 32 - value.count) + value
            index += 2 + length
        }
        return raw
    }

    private static func openssl(_ arguments: [String], in directory: String) throws {
        guard let openssl = TLSOrigin.opensslPath else { throw POSIXError(.ENOENT) }
        try TLSOrigin.run(openssl, arguments, in: directory)
    }
}
