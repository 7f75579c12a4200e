import AuthCrypto
import Foundation

/// An API key just made on `/owner` (an inbox created, a key rotated), carried across the post's 303 to the page that
/// shows it once, so that a refresh never posts the form again.
///
/// The key travels in the ``OwnerBrowser/keyFlashCookie``, sealed (AES-256-GCM under a key derived from the shared
/// CSRF key) and bound to the browser's session and a one-minute expiry: the cookie alone reads nothing, another
/// session cannot open it, and the page that shows the key clears it. Nothing is stored on the server.
struct OwnerKeyFlash: Equatable {
    /// Seconds the sealed key may wait for the page that shows it.
    static let lifetime: Int64 = 60

    /// The inbox the key opens.
    var address: String
    /// The API key, shown this once.
    var apiKey: String
    /// True for a new inbox, false for a rotated key.
    var created: Bool

    init(address: String, apiKey: String, created: Bool) {
        self.address = address
        self.apiKey = apiKey
        self.created = created
    }

    /// The cookie value: base64url of the expiry (8 bytes, big-endian), the nonce and the sealed text.
    func seal(browserKey: [UInt8], session: String, now: Int64) throws -> String {
        let expires = now + Self.lifetime
        let nonce = SecureRandom.bytes(AESGCM.nonceByteCount)
        let plain = Array(((created ? "c" : "r") + "\n" + address + "\n" + apiKey).utf8)
        let sealed = try AESGCM.seal(
            plain, key: Self.key(browserKey), nonce: nonce, associatedData: Self.binding(session, expires))
        return Base64URL.encode(Self.bytes(expires) + nonce + sealed)
    }

    /// The key a cookie value carries, when it was sealed for `session`, has not expired and is intact; else nil.
    init?(cookie: String, browserKey: [UInt8], session: String, now: Int64) {
        guard cookie.utf8.count <= 1024, let raw = Base64URL.decode(cookie),
            raw.count > 8 + AESGCM.nonceByteCount + AESGCM.tagByteCount
        else { return nil }
        let expires = raw.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard expires > now, expires <= now + Self.lifetime else { return nil }
        let nonce = Array(raw.dropFirst(8).prefix(AESGCM.nonceByteCount))
        guard let plain = try? AESGCM.open(
                Array(raw.dropFirst(8 + AESGCM.nonceByteCount)), key: Self.key(browserKey), nonce: nonce,
                associatedData: Self.binding(session, expires)),
            case let parts = String(decoding: plain, as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false),
            parts.count == 3, parts[0] == "c" || parts[0] == "r"
        else { return nil }
        self.init(address: String(parts[1]), apiKey: String(parts[2]), created: parts[0] == "c")
    }

    private static func key(_ browserKey: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: browserKey, message: Array("owner key flash".utf8))
    }

    /// What the sealing is bound to: the session (by its digest) and the expiry.
    private static func binding(_ session: String, _ expires: Int64) -> [UInt8] {
        Array("key-flash|".utf8) + SHA256.hash(Array(session.utf8)) + bytes(expires)
    }

    private static func bytes(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}
