import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL.
public enum HMACSHA256 {
    /// The MAC length in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key`.
    /// - Parameters:
    ///   - key: the secret key, any length (keys longer than 64 bytes are hashed first, per RFC 2104).
    ///   - message: the data to authenticate.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                authenticationCode(key: key, message: message)
            }
        }
    }

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key`, without copying either.
    public static func authenticationCode(
        key: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>
    ) -> [UInt8] {
        oneShotHMAC(EVP_sha256(), key: key, message: message, byteCount: byteCount, name: "SHA-256")
    }
}

/// One HMAC of `message` under `key` with the digest `type` through OpenSSL's one-shot `HMAC`; a failure (no memory)
/// stops the process, as ``oneShotDigest(_:_:byteCount:name:)`` does.
func oneShotHMAC(
    _ type: OpaquePointer?, key: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>, byteCount: Int,
    name: String
) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
        var length: UInt32 = 0
        // A non-null key pointer even for an empty key: OpenSSL treats NULL as "reuse the old key".
        let empty: UInt8 = 0
        let result = withUnsafePointer(to: empty) { emptyPointer in
            HMAC(
                type, UnsafeRawPointer(key.baseAddress ?? emptyPointer), Int32(key.count),
                message.baseAddress ?? emptyPointer, message.count, output.baseAddress, &length)
        }
        guard result != nil, length == byteCount else {
            fatalError("HMAC(\(name)) failed: \(drainOpenSSLErrors(fallback: "no reason"))")
        }
        initialized = byteCount
    }
}
