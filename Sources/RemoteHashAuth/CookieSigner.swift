import AuthCrypto

/// CSRF tokens (double-submit cookie) and short-lived signed flash cookies.
///
/// The CSRF cookie `csrf` holds 32 random bytes (base64url), `HttpOnly; SameSite=Strict`; forms
/// carry the same value in a hidden field and the two are compared in constant time. The signed cookies
/// (`flash`, `login_email`) hold a value, its expiry and an HMAC-SHA256 of both and the cookie's name under a
/// random key kept in the database (`SharedSecrets`), so a cookie one instance set verifies on every other.
struct CookieSigner: Sendable {
    static let csrfCookie = "csrf"
    static let csrfField = "csrf_token"
    static let flashCookie = "flash"
    /// After an HTML registration: the email, so that the login form comes pre-filled (never anything secret).
    static let loginEmailCookie = "login_email"

    private let key: [UInt8]
    let secure: Bool

    /// Signs with `key` (32 random bytes, shared by every instance).
    init(key: [UInt8], secure: Bool) {
        self.key = key
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

    /// The `Set-Cookie` value of cookie `name` carrying `value` until `now + lifetime`; the MAC covers the name,
    /// so that one signed cookie cannot be passed off as another.
    func signedSetCookie(_ name: String, _ value: String, now: Int64, lifetime: Int64 = 60) -> String {
        let payload = Base64URL.encode(Array(value.utf8)) + "." + String(now + lifetime)
        return "\(name)=\(payload).\(mac(name, payload)); Path=/; Max-Age=\(lifetime); HttpOnly; SameSite=Lax"
            + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes cookie `name`.
    func clearCookie(_ name: String) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The value of signed cookie `name` when its MAC checks and it has not expired.
    func signedValue(_ name: String, _ cookie: String?, now: Int64) -> String? {
        guard let cookie else { return nil }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int64(parts[1]), expiry >= now, let text = Base64URL.decode(String(parts[0])),
            let given = Base64URL.decode(String(parts[2])), let expected = Base64URL.decode(mac(name, "\(parts[0]).\(parts[1])")),
            constantTimeEquals(given, expected)
        else { return nil }
        return String(validating: text, as: UTF8.self)
    }

    private func mac(_ name: String, _ payload: String) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(key: key, message: Array("\(name)=\(payload)".utf8)))
    }
}
