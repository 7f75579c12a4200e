import AuthCrypto
import BrowserPages
import HTTP1

/// What every owner-facing page shares (the owner pages and the authorization server's sign-in and consent): the
/// session cookie, and CSRF tokens bound to the browser (``BrowserForms``, `SameSite=Lax`).
public struct OwnerBrowser: Sendable {
    /// The session cookie: `HttpOnly; SameSite=Lax; Path=/`, `Secure` behind https.
    public static let sessionCookie = "postern_owner"
    /// The pre-session cookie CSRF tokens are bound to before sign-in.
    public static let csrfCookie = "postern_csrf"
    /// The hidden form field every form carries.
    public static let csrfField = BrowserForms.csrfField
    /// The one-time notice a page shows after a post redirected to it: a code naming a fixed text, never a secret.
    public static let flashCookie = "postern_flash"
    /// An API key just made, sealed and bound to the session (``OwnerKeyFlash``), for the page a post redirects to;
    /// sent to `/owner` only.
    static let keyFlashCookie = "postern_key"

    /// The sessions the cookie opens.
    public let sessions: OwnerSessions
    /// Who is told when an owner signs out (the OpenID Provider's back-channel logout).
    public let signOuts = OwnerSignOutListeners()
    /// The cookies and CSRF tokens.
    public let forms: BrowserForms
    /// The key of the CSRF tokens, which also seals an API key's flash (``OwnerKeyFlash``).
    let key: [UInt8]
    /// Whether cookies carry `Secure` (the public URL is https).
    public var secure: Bool { forms.secure }

    /// - Parameters:
    ///   - sessions: the session table.
    ///   - key: 32 random bytes shared by every instance (`SharedSecrets`).
    ///   - secure: whether the public URL is https.
    public init(sessions: OwnerSessions, key: [UInt8], secure: Bool) {
        self.sessions = sessions
        self.key = key
        forms = BrowserForms(
            sessionCookie: Self.sessionCookie, csrfCookie: Self.csrfCookie, sameSite: "Lax", key: key, secure: secure)
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
    public func csrf(for request: HTTPRequest) -> (token: String, setCookie: String?) { forms.csrf(for: request) }

    /// Whether `fields` carries the CSRF token of the browser that sent `request` (constant-time comparison).
    public func csrfValid(_ fields: [String: String], _ request: HTTPRequest) -> Bool {
        forms.csrfValid(fields, request)
    }

    /// The `Set-Cookie` value that carries session `token` for `lifetime` seconds.
    public func sessionCookie(_ token: String, lifetime: Int64) -> String {
        forms.cookie(Self.sessionCookie, token, maxAge: lifetime)
    }

    /// The `Set-Cookie` value that carries the one-time notice `code` to the page a post redirects to (a minute).
    public func flashCookie(_ code: String) -> String {
        forms.cookie(Self.flashCookie, code, maxAge: 60)
    }

    /// The `Set-Cookie` value that removes cookie `name`.
    public func clearCookie(_ name: String) -> String {
        forms.cookie(name, "", maxAge: 0)
    }

    /// The `Set-Cookie` value that carries a sealed ``OwnerKeyFlash`` to `/owner` (exactly that path) for its lifetime.
    func keyFlashCookie(_ sealed: String) -> String {
        forms.cookie(Self.keyFlashCookie, sealed, maxAge: OwnerKeyFlash.lifetime, path: "/owner")
    }

    /// The `Set-Cookie` value that removes the key flash cookie.
    func clearKeyFlashCookie() -> String {
        forms.cookie(Self.keyFlashCookie, "", maxAge: 0, path: "/owner")
    }
}
