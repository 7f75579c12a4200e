import BrowserPages
import HTTP1
import ServerKit

extension OwnerService {
    /// What a signed-in page's handler gets: the request, its path parameters, the owner.
    typealias OwnerPageHandler = @Sendable (HTTPRequest, RouteParameters, Owner) async throws -> HTTPResponse
    /// What the handler of a page that records what the owner did gets besides: the client's address (trusted
    /// proxies honoured, as ``ServerKit/RequestContext`` resolves it), for the audit trail.
    typealias OwnerActionHandler =
        @Sendable (HTTPRequest, RouteParameters, Owner, _ client: String?) async throws -> HTTPResponse

    /// A route of a page for signed-in owners: the rate limit and error page of ``pages``; without a session a
    /// 303 to the sign-in page that comes back to `page`; a post without the browser's CSRF token is a 403 page titled
    /// `title`.
    func ownerRoute(page: String, title: String, _ handler: @escaping OwnerPageHandler) -> ContextRouteHandler {
        ownerRoute(page: page, title: title) { request, parameters, owner, _ in
            try await handler(request, parameters, owner)
        }
    }

    /// ``ownerRoute(page:title:_:)`` for a handler that records the owner's action with the client's address.
    func ownerRoute(page: String, title: String, _ handler: @escaping OwnerActionHandler) -> ContextRouteHandler {
        ownerContextRoute(page: page, title: title) { request, parameters, owner, context in
            try await handler(request, parameters, owner, context.clientAddress?.description)
        }
    }

    /// ``ownerRoute(page:title:_:)`` for a handler that needs the request's context (the client as the sign-in
    /// backoff keys it).
    func ownerContextRoute(
        page: String, title: String,
        _ handler: @escaping @Sendable (HTTPRequest, RouteParameters, Owner, RequestContext) async throws -> HTTPResponse
    ) -> ContextRouteHandler {
        pages.limitedRoute { [self] request, context, parameters in
            guard let (owner, _) = try await browser.owner(of: request) else {
                return HTMLPage.redirect(to: Self.signInPath(next: page))
            }
            if request.method == .POST, !browser.csrfValid(request.formFields(), request) {
                return BrowserPage.message(.forbidden, title, OwnerMessage.csrf)
            }
            return try await handler(request, parameters, owner, context)
        }
    }
}
