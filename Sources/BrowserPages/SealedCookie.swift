import AuthCrypto

/// A cookie value sealed to the browser pages' key (AES-256-GCM under a key derived from the shared CSRF key for one
/// `purpose`), with an expiry the sealing covers: base64url of the expiry (8 bytes, big-endian), the nonce and the
/// sealed text. The one format of the owners' key flash and of every surface's ``PendingProviderLink``.
public enum SealedCookie {
    /// Seals `plain` until `now + lifetime`, bound to `binding` (what else the value must match) and the expiry.
    public static func seal(
        _ plain: [UInt8], browserKey: [UInt8], purpose: String, binding: [UInt8], now: Int64, lifetime: Int64
    ) throws -> String {
        let expires = now + lifetime
        let nonce = SecureRandom.bytes(AESGCM.nonceByteCount)
        let sealed = try AESGCM.seal(
            plain, key: key(browserKey, purpose), nonce: nonce, associatedData: binding + bytes(expires))
        return Base64URL.encode(bytes(expires) + nonce + sealed)
    }

    /// The plain text of `cookie` when it was sealed for `purpose` and `binding`, is intact, unexpired and expires
    /// within `lifetime` of `now`; else nil.
    public static func open(
        _ cookie: String, browserKey: [UInt8], purpose: String, binding: [UInt8], now: Int64, lifetime: Int64
    ) -> [UInt8]? {
        guard cookie.utf8.count <= 4096, let raw = Base64URL.decode(cookie),
            raw.count > 8 + AESGCM.nonceByteCount + AESGCM.tagByteCount
        else { return nil }
        let expires = raw.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard expires > now, expires <= now + lifetime else { return nil }
        return try? AESGCM.open(
            Array(raw.dropFirst(8 + AESGCM.nonceByteCount)), key: key(browserKey, purpose),
            nonce: Array(raw.dropFirst(8).prefix(AESGCM.nonceByteCount)), associatedData: binding + bytes(expires))
    }

    private static func key(_ browserKey: [UInt8], _ purpose: String) -> [UInt8] {
        HMACSHA256.authenticationCode(key: browserKey, message: Array(purpose.utf8))
    }

    private static func bytes(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}
