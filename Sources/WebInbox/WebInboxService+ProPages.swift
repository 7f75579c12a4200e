import ClientAddress
import HTTP1
import ServerKit

/// Pages of a signed-in Pro user that the Mail.td side serves in the web inbox's frame and session (the Pro dashboard,
/// `MailboxWebInbox`): the web inbox decides who reads, checks a post's CSRF token and keeps the one-shot notices; the
/// page is the other target's.
extension WebInboxService {
    /// The Pro dashboard's path, which a Pro user's pages link to (`a#dashboard`) when the server serves it.
    public static let dashboardPath = "/inbox/dashboard"

    /// A route of a Pro user's page: the browser pages' rate limit and error page; the same 404 for anyone but a Pro user
    /// signed in to the web inbox and active (signed out, an account, a link, an owner, a suspended user); then a 403
    /// for a post without the session's CSRF token.
    public func proUserRoute(_ handler: @escaping @Sendable (WebInboxProUserCall) async throws -> HTTPResponse)
        -> ContextRouteHandler
    {
        pages.limitedRoute { [self] request, context, parameters in
            guard let session = request.cookie(Self.sessionCookie),
                let reader = try await viewer(of: request), case .session(.proUser(let userID)) = reader.kind,
                !reader.label.isEmpty  // an active Pro user's email; empty once suspended or deleted
            else { return WebInboxPage.notFound() }
            if request.method == .POST, !reader.forms.csrfValid(request.formFields(), request) {
                return WebInboxPage.message(.forbidden, "Forbidden", WebInboxPage.csrfMessage)
            }
            return try await handler(
                WebInboxProUserCall(
                    request: request, parameters: parameters, proUserID: userID,
                    client: context.clientAddress?.description, clientKey: context.clientKey, viewer: reader,
                    session: session, flashes: flashes))
        }
    }
}

/// What a Pro user's page gets (``WebInboxService/proUserRoute(_:)``): the request, who asks, and the web inbox's frame
/// and one-shot notices for their session.
public struct WebInboxProUserCall: Sendable {
    /// The request.
    public let request: HTTPRequest
    /// Its path parameters.
    public let parameters: RouteParameters
    /// The signed-in, active Pro user's id.
    public let proUserID: String
    /// The client's address, for the audit trail.
    public let client: String?
    /// The client's address as the sign-in backoff keys it (an IPv6 client by its /64).
    let clientKey: ClientAddressKey
    let viewer: WebInboxViewer
    /// The session's cookie value: its notices are bound to it.
    let session: String
    let flashes: WebInboxFlashes

    /// Path parameter `id`, or empty.
    public var id: String { parameters["id"] ?? "" }

    /// A whole page titled `title` in the web inbox's frame (the user's email, the sign-out form, the Pro links).
    public func document(_ title: String, main: HTML, css: String) -> HTML {
        WebInboxPage.document(title, viewer, csrf: viewer.forms.csrf(for: request).token, main: main, css: css)
    }

    /// The CSRF token a page's forms carry.
    public var csrfToken: String { viewer.forms.csrf(for: request).token }

    /// Keeps `flash` for the session's next page, replacing any (two minutes at most).
    public func put(_ flash: WebInboxFlash) async throws {
        try await flashes.put(flash, session: session)
    }

    /// What the last post left for this page, once; nil when nothing waits.
    public func takeFlash() async throws -> WebInboxFlash? {
        try await flashes.take(session: session)
    }

    /// The web inbox's 404 page: the one answer for what the user may not see.
    public static func notFound() -> HTTPResponse { WebInboxPage.notFound() }

    /// `/inbox/m/<mailbox>`, the address percent-encoded.
    public static func mailboxPath(_ mailbox: String) -> String { WebInboxPage.mailboxPath(mailbox) }

    /// Bytes in binary units (`1.5 MiB`), as the web inbox shows sizes.
    public static func size(_ bytes: Int64) -> String { WebInboxPage.size(bytes) }

    /// A Unix time as the web inbox shows it.
    public static func time(_ seconds: Int64) -> HTML { WebInboxPage.time(seconds) }
}
