import AuthCrypto
import HTTP1

/// The cookies and CSRF tokens of one family of server-rendered pages (the owner pages, the web inbox): a session
/// cookie, a pre-session cookie, and CSRF tokens bound to the browser.
///
/// A CSRF token is the HMAC-SHA256, under a key every instance shares, of what identifies the browser: its session
/// cookie once signed in, before that a random pre-session cookie the first page sets. A forged form from another
/// site cannot know it; signing in changes the binding, so a token from before sign-in is useless after.
public struct BrowserForms: Sendable {
    /// The session cookie's name.
    public let sessionCookie: String
    /// The pre-session cookie's name.
    public let csrfCookie: String
    /// The hidden form field every form carries.
    public static let csrfField = "csrf_token"
    /// `Lax` or `Strict`.
    public let sameSite: String
    let key: [UInt8]
    /// Whether cookies carry `Secure` (the public URL is https).
    public let secure: Bool

    /// - Parameters:
    ///   - sessionCookie: the session cookie's name.
    ///   - csrfCookie: the pre-session cookie's name.
    ///   - sameSite: the cookies' `SameSite` attribute, `Lax` or `Strict`.
    ///   - key: 32 random bytes shared by every instance (`SharedSecrets`), one per family of pages.
    ///   - secure: whether the public URL is https.
    public init(sessionCookie: String, csrfCookie: String, sameSite: String, key: [UInt8], secure: Bool) {
        self.sessionCookie = sessionCookie
        self.csrfCookie = csrfCookie
        self.sameSite = sameSite
        self.key = key
        self.secure = secure
    }

    /// The CSRF token for forms rendered in answer to `request`, and the `Set-Cookie` value to send when the browser
    /// has neither a session nor a pre-session cookie yet.
    public func csrf(for request: HTTPRequest) -> (token: String, setCookie: String?) {
        if let binding = binding(of: request) { return (token(binding), nil) }
        let fresh = Base64URL.encode(SecureRandom.bytes(32))
        return (token("p:" + fresh), cookie(csrfCookie, fresh, maxAge: nil))
    }

    /// Whether `fields` carries the CSRF token of the browser that sent `request` (constant-time comparison).
    public func csrfValid(_ fields: [String: String], _ request: HTTPRequest) -> Bool {
        guard let binding = binding(of: request), let given = fields[Self.csrfField] else { return false }
        return constantTimeEquals(Array(given.utf8), Array(token(binding).utf8))
    }

    /// A `Set-Cookie` value: `HttpOnly`, this family's `SameSite`, `Secure` behind https; `maxAge` 0 removes it.
    public func cookie(_ name: String, _ value: String, maxAge: Int64?, path: String = "/") -> String {
        var text = "\(name)=\(value); Path=\(path); HttpOnly; SameSite=\(sameSite)"
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        return secure ? text + "; Secure" : text
    }

    private func binding(of request: HTTPRequest) -> String? {
        if let session = request.cookie(sessionCookie), !session.isEmpty { return "s:" + session }
        if let pre = request.cookie(csrfCookie), pre.utf8.count == 43 { return "p:" + pre }
        return nil
    }

    private func token(_ binding: String) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(key: key, message: Array(("csrf|" + binding).utf8)))
    }
}
