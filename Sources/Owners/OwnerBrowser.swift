import AuthCrypto
import HTTP1

/// What every owner-facing page shares (the owner pages and the authorization server's sign-in and consent): the
/// session cookie, and CSRF tokens bound to the browser.
///
/// A CSRF token is the HMAC-SHA256, under a key every instance shares, of what identifies the browser: its session
/// cookie once signed in, before that a random `postern_csrf` cookie the first page sets. A forged form from another
/// site cannot know it; signing in changes the binding, so a token from before sign-in is useless after.
public struct OwnerBrowser: Sendable {
    /// The session cookie: `HttpOnly; SameSite=Lax; Path=/`, `Secure` behind https.
    public static let sessionCookie = "postern_owner"
    /// The pre-session cookie CSRF tokens are bound to before sign-in.
    public static let csrfCookie = "postern_csrf"
    /// The hidden form field every form carries.
    public static let csrfField = "csrf_token"
    /// The one-time notice a page shows after a post redirected to it: a code naming a fixed text, never a secret.
    public static let flashCookie = "postern_flash"
    /// An API key just made, sealed and bound to the session (``OwnerKeyFlash``), for the page a post redirects to;
    /// sent to `/owner` only.
    static let keyFlashCookie = "postern_key"

    /// The sessions the cookie opens.
    public let sessions: OwnerSessions
    let key: [UInt8]
    /// Whether cookies carry `Secure` (the public URL is https).
    public let secure: Bool

    /// - Parameters:
    ///   - sessions: the session table.
    ///   - key: 32 random bytes shared by every instance (`SharedSecrets`).
    ///   - secure: whether the public URL is https.
    public init(sessions: OwnerSessions, key: [UInt8], secure: Bool) {
        self.sessions = sessions
        self.key = key
        self.secure = secure
    }

    /// The signed-in owner of `request` and their session token, or nil.
    /// - Throws: storage errors.
    public func owner(of request: HTTPRequest) async throws -> (owner: Owner, session: String)? {
        guard let token = request.cookie(Self.sessionCookie), let owner = try await sessions.owner(token: token) else {
            return nil
        }
        return (owner, token)
    }

    /// The CSRF token for forms rendered in answer to `request`, and the `Set-Cookie` value to send when the browser
    /// has neither a session nor a pre-session cookie yet.
    public func csrf(for request: HTTPRequest) -> (token: String, setCookie: String?) {
        if let binding = binding(of: request) { return (token(binding), nil) }
        let fresh = Base64URL.encode(SecureRandom.bytes(32))
        return (token("p:" + fresh), cookie(Self.csrfCookie, fresh, maxAge: nil))
    }

    /// Whether `fields` carries the CSRF token of the browser that sent `request` (constant-time comparison).
    public func csrfValid(_ fields: [String: String], _ request: HTTPRequest) -> Bool {
        guard let binding = binding(of: request), let given = fields[Self.csrfField] else { return false }
        return constantTimeEquals(Array(given.utf8), Array(token(binding).utf8))
    }

    /// The `Set-Cookie` value that carries session `token` for `lifetime` seconds.
    public func sessionCookie(_ token: String, lifetime: Int64) -> String {
        cookie(Self.sessionCookie, token, maxAge: lifetime)
    }

    /// The `Set-Cookie` value that carries the one-time notice `code` to the page a post redirects to (a minute).
    public func flashCookie(_ code: String) -> String {
        cookie(Self.flashCookie, code, maxAge: 60)
    }

    /// The `Set-Cookie` value that removes cookie `name`.
    public func clearCookie(_ name: String) -> String {
        cookie(name, "", maxAge: 0)
    }

    /// The `Set-Cookie` value that carries a sealed ``OwnerKeyFlash`` to `/owner` (exactly that path) for its lifetime.
    func keyFlashCookie(_ sealed: String) -> String {
        cookie(Self.keyFlashCookie, sealed, maxAge: OwnerKeyFlash.lifetime, path: "/owner")
    }

    /// The `Set-Cookie` value that removes the key flash cookie.
    func clearKeyFlashCookie() -> String {
        cookie(Self.keyFlashCookie, "", maxAge: 0, path: "/owner")
    }

    private func binding(of request: HTTPRequest) -> String? {
        if let session = request.cookie(Self.sessionCookie), !session.isEmpty { return "s:" + session }
        if let pre = request.cookie(Self.csrfCookie), pre.utf8.count == 43 { return "p:" + pre }
        return nil
    }

    private func token(_ binding: String) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(key: key, message: Array(("csrf|" + binding).utf8)))
    }

    private func cookie(_ name: String, _ value: String, maxAge: Int64?, path: String = "/") -> String {
        var text = "\(name)=\(value); Path=\(path); HttpOnly; SameSite=Lax"
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        return secure ? text + "; Secure" : text
    }
}
