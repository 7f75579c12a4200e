import AuthCrypto

/// CSRF tokens (double-submit cookie) and short-lived signed flash cookies.
///
/// The CSRF cookie `csrf` holds 32 random bytes (base64url), `HttpOnly; SameSite=Strict`; forms
/// carry the same value in a hidden field and the two are compared in constant time. The flash
/// cookie holds a message, its expiry and an HMAC-SHA256 under a per-process random key.
struct CookieSigner: Sendable {
    static let csrfCookie = "csrf"
    static let csrfField = "csrf_token"
    static let flashCookie = "flash"

    private let key: [UInt8]
    let secure: Bool

    init(secure: Bool) {
        key = SecureRandom.bytes(32)
        self.secure = secure
    }

    /// A fresh CSRF token.
    static func newCSRFToken() -> String { Base64URL.encode(SecureRandom.bytes(32)) }

    /// Whether `token` looks like one of ours (43 base64url characters).
    static func isWellFormedCSRF(_ token: String?) -> Bool {
        guard let token, token.utf8.count == 43, let bytes = Base64URL.decode(token) else { return false }
        return bytes.count == 32
    }

    /// Constant-time comparison of the cookie and the form field; false when either is missing.
    static func csrfMatches(cookie: String?, field: String?) -> Bool {
        guard isWellFormedCSRF(cookie), let cookie, let field else { return false }
        return constantTimeEquals(Array(cookie.utf8), Array(field.utf8))
    }

    /// The `Set-Cookie` value for a CSRF token.
    func csrfSetCookie(_ token: String) -> String {
        "\(CookieSigner.csrfCookie)=\(token); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value carrying `message` until `now + lifetime`.
    func flashSetCookie(_ message: String, now: Int64, lifetime: Int64 = 60) -> String {
        let payload = Base64URL.encode(Array(message.utf8)) + "." + String(now + lifetime)
        let mac = Base64URL.encode(HMACSHA256.authenticationCode(key: key, message: Array(payload.utf8)))
        return "\(CookieSigner.flashCookie)=\(payload).\(mac); Path=/; Max-Age=\(lifetime); HttpOnly; SameSite=Lax"
            + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes the flash cookie.
    func flashClearCookie() -> String {
        "\(CookieSigner.flashCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The message of a flash cookie whose MAC checks and which has not expired.
    func flashMessage(_ cookie: String?, now: Int64) -> String? {
        guard let cookie else { return nil }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int64(parts[1]), expiry >= now,
            let mac = Base64URL.decode(String(parts[2])), let text = Base64URL.decode(String(parts[0]))
        else { return nil }
        let payload = Array("\(parts[0]).\(parts[1])".utf8)
        guard constantTimeEquals(mac, HMACSHA256.authenticationCode(key: key, message: payload)) else { return nil }
        return String(validating: text, as: UTF8.self)
    }
}
