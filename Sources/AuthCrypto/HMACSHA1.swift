import COpenSSL

/// HMAC-SHA1 (RFC 2104) through OpenSSL, for the one protocol that fixes it: HOTP and TOTP (RFC 4226, RFC 6238),
/// whose authenticator apps default to SHA-1. HMAC-SHA1 stays a sound MAC (its strength does not rest on SHA-1's
/// collision resistance); never use it where a new design may choose.
public enum HMACSHA1 {
    /// The MAC length in bytes.
    public static let byteCount = 20

    /// Returns the 20-byte HMAC-SHA1 of `message` under `key` (any length; longer than 64 bytes is hashed first).
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                oneShotHMAC(EVP_sha1(), key: key, message: message, byteCount: byteCount, name: "SHA-1")
            }
        }
    }
}
