import Audit
import BrowserPages
import Directory
import HTTP1
import OAuthGrants
import Owners
import ServerKit

extension OAuthService {
    /// `GET /oauth/authorize` (contract 1.3): any error is a 400 page (no redirect before the owner has seen the
    /// consent page: RFC 9700 section 4.11.2); a browser without an owner session goes to the sign-in page and
    /// comes back; then the consent page.
    func authorize(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let openIDResponse = try await authorizeOpenID(request) { return openIDResponse }
        let query = request.query ?? ""
        let authorization: OAuthAuthorizationRequest
        switch try await check(request.queryItems) {
        case .failure(let failure): return respond(failure)
        case .success(let checked): authorization = checked
        }
        guard let (owner, _) = try await browser.owner(of: request) else {
            return HTMLPage.redirect(to: Self.signIn(query: query))
        }
        return try await consentPage(authorization.subject(query: query), owner: owner, request: request, status: .ok)
    }

    /// `POST /oauth/consent`: checks the CSRF token, the session, the signed request and the whole authorization
    /// request again; deny redirects `access_denied`; approve creates the grant and the code and redirects with
    /// `code`, `state` and `iss`. The audit trail records `client`, the browser's address.
    func consent(_ request: HTTPRequest, client: String?) async throws -> HTTPResponse {
        let fields = request.formFields()
        let ticket = fields["request"] ?? ""
        guard browser.csrfValid(fields, request) else {
            return BrowserPage.message(
                .forbidden, "Allow access?", "The form was too old or came from elsewhere; start again from the app.")
        }
        guard let (owner, _) = try await browser.owner(of: request) else {
            return HTMLPage.redirect(to: Self.signIn(query: OAuthConsentTicket.unverifiedQuery(ticket) ?? ""))
        }
        let now = clock()
        guard let query = OAuthConsentTicket.open(ticket, ownerID: owner.id, now: now, key: consentKey) else {
            return BrowserPage.message(
                .badRequest, "Allow access?", "This consent form has expired; start again from the app.")
        }
        let authorization: OAuthAuthorizationRequest
        switch try await check(HTTPRequest.items(ofQuery: query)) {
        case .failure(let failure): return respond(failure)
        case .success(let checked): authorization = checked
        }
        switch fields["decision"] {
        case "deny"?:
            return redirect(authorization.redirectURI, state: authorization.state, error: OAuthError(
                "access_denied", "The owner denied the request."))
        case "approve"?: break
        default:
            return BrowserPage.message(.badRequest, "Allow access?", "Choose Allow or Deny.")
        }
        let subject = authorization.subject(query: query)
        let choice: ConsentChoice
        switch try await choose(fields, request: request, owner: owner, subject: subject, client: client) {
        case .again(let message, let status):
            return try await consentPage(subject, owner: owner, request: request, status: status, error: message)
        case .foreignInbox:
            return redirect(authorization.redirectURI, state: authorization.state, error: OAuthError(
                "access_denied", "The inbox of resource is not one of this owner's."))
        case .chosen(let chosen): choice = chosen
        }
        let (agentID, permissions, scopes) = (choice.agentID, choice.permissions, choice.permissions.names)
        let inboxOnly = choice.inboxOnly
        let (grant, code) = try await grants.approve(
            ownerID: owner.id, clientID: authorization.clientID, agentID: agentID,
            boundAccountID: inboxOnly ? agentID : nil, permissions: permissions,
            resource: authorization.resource, redirectURI: authorization.redirectURI,
            codeChallenge: authorization.codeChallenge, now: now, codeLifetime: configuration.codeLifetime,
            grantLifetime: configuration.grantLifetime)
        metrics.grants.increment()
        await audit.owner(
            owner.id, .appApproved, target: grant.id, client: client,
            details: AuditDetails.json(["client_id": grant.clientID, "scopes": scopes.joined(separator: " ")]))
        return HTMLPage.redirect(
            to: OAuthURL.appending(
                [("code", code), ("state", authorization.state), ("iss", configuration.issuer)],
                to: authorization.redirectURI))
    }

    // MARK: - Steps

    /// The authorization request in `items`, its client looked up.
    func check(_ items: [(name: String, value: String)]) async throws
        -> Result<OAuthAuthorizationRequest, OAuthAuthorizationRequest.Failure>
    {
        var client: OAuthClient?
        if let clientID = OAuthAuthorizationRequest.clientID(in: items) { client = try await self.client(id: clientID) }
        do {
            return .success(try OAuthAuthorizationRequest(items: items, client: client, configuration: configuration))
        } catch {
            return .failure(error)
        }
    }

    func respond(_ failure: OAuthAuthorizationRequest.Failure) -> HTTPResponse {
        BrowserPage.message(.badRequest, "This app's request is not valid", failure.text)
    }

    /// A 302 to `redirectURI` with `error`, `error_description`, `state` (when known) and `iss` (RFC 9207).
    func redirect(_ redirectURI: String, state: String?, error: OAuthError) -> HTTPResponse {
        var parameters = [("error", error.code), ("error_description", error.description)]
        if let state { parameters.append(("state", state)) }
        parameters.append(("iss", configuration.issuer))
        var response = HTTPResponse(status: .found)
        response.headers.replaceOrAdd("Location", OAuthURL.appending(parameters, to: redirectURI))
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }

    /// The sign-in page that comes back to `/oauth/authorize?<query>`.
    static func signIn(query: String) -> String {
        OwnerService.signInPath(next: "/oauth/authorize" + (query.isEmpty ? "" : "?" + query))
    }

    static func words(_ error: OwnedInboxError) -> String {
        switch error {
        case .invalidUsername: return "An inbox username is 5 to 21 of a-z, 0-9, dot, underscore and hyphen."
        case .reservedUsername: return "That username is reserved; choose another."
        case .usernameTaken: return "That username is taken; choose another."
        case .unknownKey, .heldByAnother: return "That inbox cannot be used."
        case .limitReached(let limit): return "You hold \(limit) inboxes, the most one owner may; pick one of them."
        }
    }
}
