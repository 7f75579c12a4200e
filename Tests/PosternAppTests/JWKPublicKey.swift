import AuthCrypto
import Foundation

/// Builds an RSA public key from a JWK's `n` and `e` alone, as a resource server that knows only
/// `/.well-known/jwks.json` would: DER SubjectPublicKeyInfo wrapped in PEM.
enum JWKPublicKey {
    static func make(n: String, e: String) throws -> RSAPublicKey {
        guard let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else {
            throw TestClientError.malformed("JWK n/e")
        }
        let rsaKey = sequence(integer(modulus) + integer(exponent))
        let algorithm = sequence([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        let spki = sequence(algorithm + tlv(0x03, [0x00] + rsaKey))
        let base64 = Data(spki).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return try RSAPublicKey(pem: "-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n")
    }

    private static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.first.map({ $0 & 0x80 != 0 }) ?? true { value.insert(0, at: 0) }
        return tlv(0x02, value)
    }

    private static func sequence(_ content: [UInt8]) -> [UInt8] { tlv(0x30, content) }

    private static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 128 {
            length = [UInt8(content.count)]
        } else {
            var n = content.count
            var digits: [UInt8] = []
            while n > 0 {
                digits.insert(UInt8(n & 0xFF), at: 0)
                n >>= 8
            }
            length = [0x80 | UInt8(digits.count)] + digits
        }
        return [tag] + length + content
    }
}
