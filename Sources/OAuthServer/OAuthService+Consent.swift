import Audit
import BrowserPages
import Directory
import HTTP1
import OAuthGrants
import Owners
import ServerKit

/// What a consent page asks an owner about: the code flow's authorization request, or a device authorization
/// (RFC 8628) entered on `/owner/device`. One page and one reading of its form serve both.
struct OAuthConsentSubject: Sendable {
    let client: OAuthClient
    let scopes: [String]
    /// The resource, as written (the tokens' `aud`).
    let resource: String
    let target: OAuthResource
    /// Where the code flow's answer goes; nil for a device authorization (the device polls).
    let redirectURI: String?
    /// Where the form posts.
    let action: String
    /// What the form's signed ticket carries (``OAuthConsentTicket``): the authorization request's query, or the
    /// device authorization's user code.
    let query: String
    /// The user code a device authorization shows (`BCDF-GHJK`), for the owner to compare with the device's.
    var userCode: String?
}

extension OAuthAuthorizationRequest {
    /// The consent page's subject for this request, `query` as it came.
    func subject(query: String) -> OAuthConsentSubject {
        OAuthConsentSubject(
            client: client, scopes: scopes, resource: resource, target: target, redirectURI: redirectURI,
            action: "/oauth/consent", query: query)
    }
}

extension OAuthService {
    /// What the owner chose on the consent form.
    struct ConsentChoice: Sendable {
        /// The permissions ticked.
        let permissions: MailPermissions
        /// The default inbox (picked, created here, or the inbox of an inbox resource).
        let agentID: String
        /// Whether the grant reaches only that inbox (else every inbox the owner holds).
        let inboxOnly: Bool
    }

    /// How the consent form's approval reads.
    enum ConsentReading: Sendable {
        case chosen(ConsentChoice)
        /// Show the page again with this error.
        case again(String, HTTPStatus)
        /// The resource names an inbox that is not the owner's.
        case foreignInbox
    }

    /// Reads an approving consent form for `subject`: the scopes ticked (of those asked), every inbox or only one,
    /// and the inbox (one held, or a new one made here, audited with the browser's address `client`).
    func choose(
        _ fields: [String: String], request: HTTPRequest, owner: Owner, subject: OAuthConsentSubject, client: String?
    ) async throws -> ConsentReading {
        let scopes = subject.scopes.filter(request.formValues("scope").contains)
        guard let permissions = MailPermissions(scope: scopes.joined(separator: " ")) else {
            return .again("Tick at least one permission, or choose Deny.", .badRequest)
        }
        // Every inbox the owner holds (Atomic's user-scoped grant) or only the one picked; an inbox resource is
        // bound to its inbox already.
        let inboxOnly: Bool
        switch (subject.target, fields["reach"]) {
        case (.inbox, _): inboxOnly = true
        case (.service, "all"?): inboxOnly = false
        case (.service, "inbox"?): inboxOnly = true
        case (.service, _): return .again("Choose every inbox you hold, or only this one.", .badRequest)
        }
        let agentID: String
        if case .inbox(let accountID) = subject.target {
            guard try await inboxes.inbox(accountID: accountID, ownerID: owner.id) != nil else { return .foreignInbox }
            agentID = accountID
        } else if let username = fields["new_inbox"], !username.isEmpty {
            do {
                let inbox = try await inboxes.createInbox(username: username, ownerID: owner.id).inbox
                agentID = inbox.accountID
                await audit.owner(owner.id, .inboxCreated, target: inbox.address, client: client)
            } catch let error as OwnedInboxError {
                if case .limitReached = error { return .again(Self.words(error), .forbidden) }
                return .again(Self.words(error), .unprocessableEntity)
            }
        } else if let accountID = fields["account_id"], !accountID.isEmpty,
            let held = try await inboxes.inbox(accountID: accountID, ownerID: owner.id)
        {
            // Only an inbox the owner holds, as the directory spells its id: the grant may be bound to it.
            agentID = held.accountID
        } else {
            return .again("Pick one of your inboxes or name a new one.", .badRequest)
        }
        return .chosen(ConsentChoice(permissions: permissions, agentID: agentID, inboxOnly: inboxOnly))
    }

    /// The consent page for `subject`, its form's ticket sealed for `owner`.
    func consentPage(
        _ subject: OAuthConsentSubject, owner: Owner, request: HTTPRequest, status: HTTPStatus, error: String? = nil
    ) async throws -> HTTPResponse {
        let client = subject.client
        var inboxes = try await inboxes.inboxes(ownerID: owner.id)
        if case .inbox(let accountID) = subject.target {
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
            redirectURI: subject.redirectURI, userCode: subject.userCode, action: subject.action,
            scopes: subject.scopes, resource: subject.resource, inboxes: inboxes,
            mayCreate: subject.target == .service(subject.resource),
            ticket: OAuthConsentTicket.seal(
                query: subject.query, ownerID: owner.id, expires: clock() + configuration.consentLifetime,
                key: consentKey),
            csrfToken: csrf, owner: owner, error: error)
        // The consent POST answers with a redirect to the app: browsers hold form-action to redirects too.
        // Only a checked redirect URI's origin is named: its host is LDH, and the policy refuses a source that could
        // end or widen the directive. A device's consent answers with a page of this origin.
        let origin = (subject.redirectURI.flatMap(OAuthRedirectURI.init)?.cspSource)
            .flatMap(ContentSecurityPolicy.Source.url)
        return HTMLPage.response(
            status, page.render(), policy: origin.map { ContentSecurityPolicy.page.formAction(adding: $0) } ?? .page,
            setCookies: setCookie.map { [$0] } ?? [])
    }
}
