import AuthCrypto
import BrowserPages
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

    /// The cookie value (``SealedCookie``), bound to `session`.
    func seal(browserKey: [UInt8], session: String, now: Int64) throws -> String {
        let plain = Array(((created ? "c" : "r") + "\n" + address + "\n" + apiKey).utf8)
        return try SealedCookie.seal(
            plain, browserKey: browserKey, purpose: "owner key flash", binding: Self.binding(session), now: now,
            lifetime: Self.lifetime)
    }

    /// The key a cookie value carries, when it was sealed for `session`, has not expired and is intact; else nil.
    init?(cookie: String, browserKey: [UInt8], session: String, now: Int64) {
        guard
            let plain = SealedCookie.open(
                cookie, browserKey: browserKey, purpose: "owner key flash", binding: Self.binding(session), now: now,
                lifetime: Self.lifetime),
            case let parts = String(decoding: plain, as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false),
            parts.count == 3, parts[0] == "c" || parts[0] == "r"
        else { return nil }
        self.init(address: String(parts[1]), apiKey: String(parts[2]), created: parts[0] == "c")
    }

    /// What the sealing is bound to besides the expiry: the session, by its digest.
    private static func binding(_ session: String) -> [UInt8] {
        Array("key-flash|".utf8) + SHA256.hash(Array(session.utf8))
    }
}
