import HTTP1
import ServerKit

/// An identity waiting for an account's password before it is linked to it (``SignInProviders`` linking step 4, the
/// pre-hijack rule), carried from the provider's callback to the surface's password question in a cookie, sealed
/// (``SealedCookie``: AES-256-GCM under a key derived from the surface's CSRF key and its `purpose`) with a ten-minute
/// expiry: the browser cannot read or change it, and nothing is stored on the server. It opens nothing by itself: the
/// link needs the account's password. Owners' and Pro users' links are sealed for different purposes, so one is never
/// the other.
public struct PendingProviderLink: Equatable, Sendable {
    /// Seconds the password question may wait.
    public static let lifetime: Int64 = 600

    /// The provider's name.
    public var provider: String
    /// The identity.
    public var issuer: String
    public var subject: String
    /// The provider's verified email, which is the account's.
    public var email: String
    /// The account whose password is asked.
    public var account: String

    /// Memberwise.
    public init(provider: String, issuer: String, subject: String, email: String, account: String) {
        self.provider = provider
        self.issuer = issuer
        self.subject = subject
        self.email = email
        self.account = account
    }

    /// Whether it can be sealed: no part holds the separator (a line feed).
    public var isSealable: Bool {
        ![provider, issuer, subject, email, account].contains { $0.contains("\n") }
    }

    /// The cookie value, sealed for `purpose` (`"owner pending link"`, `"pro pending link"`).
    /// - Throws: the cipher's errors.
    public func seal(browserKey: [UInt8], purpose: String, now: Int64) throws -> String {
        try SealedCookie.seal(
            Array([provider, issuer, subject, email, account].joined(separator: "\n").utf8), browserKey: browserKey,
            purpose: purpose, binding: Array("pending-link|".utf8), now: now, lifetime: Self.lifetime)
    }

    /// The pending link a cookie value sealed for `purpose` carries when it is intact and unexpired; else nil.
    public init?(cookie: String, browserKey: [UInt8], purpose: String, now: Int64) {
        guard
            let plain = SealedCookie.open(
                cookie, browserKey: browserKey, purpose: purpose, binding: Array("pending-link|".utf8), now: now,
                lifetime: Self.lifetime),
            case let parts = String(decoding: plain, as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            parts.count == 5
        else { return nil }
        self.init(provider: parts[0], issuer: parts[1], subject: parts[2], email: parts[3], account: parts[4])
    }
}

extension BrowserForms {
    /// `link` sealed under this family of pages' key for `purpose` (the key itself stays here).
    /// - Throws: the cipher's errors.
    public func seal(_ link: PendingProviderLink, purpose: String, now: Int64) throws -> String {
        try link.seal(browserKey: key, purpose: purpose, now: now)
    }

    /// The pending link `cookie` carries when it was sealed by ``seal(_:purpose:now:)`` for `purpose` and is intact
    /// and unexpired; else nil.
    public func pendingLink(_ cookie: String, purpose: String, now: Int64) -> PendingProviderLink? {
        PendingProviderLink(cookie: cookie, browserKey: key, purpose: purpose, now: now)
    }

    /// The password question's page (``PendingProviderLink/question(action:account:providerName:csrfToken:error:)``,
    /// "Link your sign-in") with `status`, its form's CSRF token this family's for `request` (and the pre-session
    /// cookie that token is bound to, when the browser had none).
    public func linkQuestionPage(
        _ status: HTTPStatus, _ request: HTTPRequest, _ pending: PendingProviderLink, action: String, account: String,
        providerName: String, error: String?
    ) -> HTTPResponse {
        let (token, setCookie) = csrf(for: request)
        let main = pending.question(
            action: action, account: account, providerName: providerName, csrfToken: token, error: error)
        return HTMLPage.response(
            status, BrowserPage.document(title: "Link your sign-in", main: main),
            setCookies: setCookie.map { [$0] } ?? [])
    }
}

extension PendingProviderLink {
    /// The password question's card (`#link-account`, `#link-email`, `#link-form` with `password` and the hidden
    /// `csrf_token`, `#submit`): nothing is linked and nobody is signed in until the account's password is typed.
    /// - Parameters:
    ///   - action: where the form posts.
    ///   - account: what the account is called (`An owner account`, `A Pro account`).
    ///   - providerName: the provider's display name.
    ///   - csrfToken: the form's token.
    ///   - error: a refusal to show above the form, if any.
    public func question(action: String, account: String, providerName: String, csrfToken: String, error: String?)
        -> HTML
    {
        """
        <section class="card" id="link-account">
        \(HTML.notice(error, .error))
        <p>\(account) here already uses <strong id="link-email">\(email)</strong>. Nothing is linked and you are not \
        signed in: to link your \(providerName) sign-in to that account, type its password. If it is not your account, \
        leave this page.</p>
        <form method="post" action="\(action)" id="link-form">
        <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrfToken)">
        <label for="password">Password of \(email)</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit" id="submit">Link and sign in</button>
        </form>
        </section>
        """
    }
}
