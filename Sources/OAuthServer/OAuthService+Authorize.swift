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
        return try await consentPage(authorization, owner: owner, query: query, request: request, status: .ok)
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
        func again(_ message: String, _ status: HTTPStatus = .badRequest) async throws -> HTTPResponse {
            try await consentPage(
                authorization, owner: owner, query: query, request: request, status: status, error: message)
        }
        let scopes = authorization.scopes.filter(request.formValues("scope").contains)
        guard let permissions = MailPermissions(scope: scopes.joined(separator: " ")) else {
            return try await again("Tick at least one permission, or choose Deny.")
        }
        // Every inbox the owner holds (Atomic's user-scoped grant) or only the one picked; an inbox resource is
        // bound to its inbox already.
        let inboxOnly: Bool
        switch (authorization.target, fields["reach"]) {
        case (.inbox, _): inboxOnly = true
        case (.service, "all"?): inboxOnly = false
        case (.service, "inbox"?): inboxOnly = true
        case (.service, _): return try await again("Choose every inbox you hold, or only this one.")
        }
        let agentID: String
        if case .inbox(let accountID) = authorization.target {
            guard try await inboxes.inbox(accountID: accountID, ownerID: owner.id) != nil else {
                return redirect(authorization.redirectURI, state: authorization.state, error: OAuthError(
                    "access_denied", "The inbox of resource is not one of this owner's."))
            }
            agentID = accountID
        } else if let username = fields["new_inbox"], !username.isEmpty {
            do {
                let inbox = try await inboxes.createInbox(username: username, ownerID: owner.id).inbox
                agentID = inbox.accountID
                await audit.owner(owner.id, .inboxCreated, target: inbox.address, client: client)
            } catch let error as OwnedInboxError {
                if case .limitReached = error { return try await again(Self.words(error), .forbidden) }
                return try await again(Self.words(error), .unprocessableEntity)
            }
        } else if let accountID = fields["account_id"], !accountID.isEmpty,
            let held = try await inboxes.inbox(accountID: accountID, ownerID: owner.id)
        {
            // Only an inbox the owner holds, as the directory spells its id: the grant may be bound to it.
            agentID = held.accountID
        } else {
            return try await again("Pick one of your inboxes or name a new one.")
        }
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

    func consentPage(
        _ authorization: OAuthAuthorizationRequest, owner: Owner, query: String, request: HTTPRequest,
        status: HTTPStatus, error: String? = nil
    ) async throws -> HTTPResponse {
        let client = authorization.client
        var inboxes = try await inboxes.inboxes(ownerID: owner.id)
        if case .inbox(let accountID) = authorization.target {
            inboxes = inboxes.filter { $0.accountID == accountID }
            guard !inboxes.isEmpty else {
                return respond(.init(OAuthError("access_denied", "The inbox of resource is not one of yours.")))
            }
        }
        let (csrf, setCookie) = browser.csrf(for: request)
        let page = OAuthPages.Consent(
            clientName: client.name, clientID: client.clientID,
            clientHost: OAuthClientMetadataDocument.isDocumentURL(client.clientID)
                ? OAuthURL.host(client.clientID) : nil,
            redirectURI: authorization.redirectURI,
            scopes: authorization.scopes, resource: authorization.resource, inboxes: inboxes,
            mayCreate: authorization.target == .service(authorization.resource),
            ticket: OAuthConsentTicket.seal(
                query: query, ownerID: owner.id, expires: clock() + configuration.consentLifetime, key: consentKey),
            csrfToken: csrf, owner: owner, error: error)
        // The consent POST answers with a redirect to the app: browsers hold form-action to redirects too.
        // Only a checked redirect URI's origin is named: its host is LDH, and the policy refuses a source that could
        // end or widen the directive.
        let origin = (OAuthRedirectURI(authorization.redirectURI)?.cspSource).flatMap(ContentSecurityPolicy.Source.url)
        return HTMLPage.response(
            status, page.render(), policy: origin.map { ContentSecurityPolicy.page.formAction(adding: $0) } ?? .page,
            setCookies: setCookie.map { [$0] } ?? [])
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
