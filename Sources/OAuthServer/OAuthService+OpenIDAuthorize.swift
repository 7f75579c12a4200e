import Audit
import AuthCrypto
import BrowserPages
import HTTP1
import OAuthGrants
import Owners
import ServerKit
import SignInMethods

extension OAuthService {
    /// `GET /oauth/authorize` for an OpenID relying party (issue 88): nil when `client_id` names none (the OAuth
    /// flow then answers). Checks the request, then decides by ``OIDCPrompt``: the sign-in page, an error at the
    /// redirect URI, the consent page, or a code.
    func authorizeOpenID(_ request: HTTPRequest) async throws -> HTTPResponse? {
        guard let provider = openID, let clientID = OAuthAuthorizationRequest.clientID(in: request.queryItems),
            let party = try await provider.parties.party(id: clientID)
        else { return nil }
        let authorization: OIDCAuthorizationRequest
        do {
            authorization = try OIDCAuthorizationRequest(items: request.queryItems, party: party)
        } catch {
            return respond(error)
        }
        let query = request.query ?? ""
        let now = clock()
        var session: (owner: Owner, proof: OwnerSessionProof)?
        if let (owner, token) = try await browser.owner(of: request),
            let proof = try await browser.sessions.proof(token: token)
        {
            session = (owner, proof)
        }
        let consented: Bool
        if let session {
            let remembered = try await provider.signIns.consent(ownerID: session.owner.id, clientID: party.clientID)
            consented = authorization.consentScopes.allSatisfy { remembered?.contains($0) ?? false }
        } else {
            consented = false
        }
        let decision = OIDCPrompt.decide(
            authorization.prompt,
            session: session.map { OIDCPrompt.Session(authTime: $0.proof.openedAt, email: $0.owner.email) },
            consented: consented, firstParty: party.firstParty, now: now)
        switch decision {
        case .signIn(let again):
            metrics.openIDEvent("sign_in")
            return HTMLPage.redirect(to: Self.openIDSignIn(query: query, again: again, now: now, hint: authorization.prompt.loginHint))
        case .error(let code):
            metrics.openIDEvent(code)
            return redirect(authorization, OAuthError(code, Self.words(code)))
        case .consent, .issue:
            guard let session else { return nil }  // decide() signs in first: there is a session here
            if let refused = refusal(of: session.owner, session.proof, by: party) {
                metrics.openIDEvent("access_denied")
                return redirect(authorization, refused)
            }
            if decision == .consent {
                let (csrf, setCookie) = browser.csrf(for: request)
                let page = OIDCPages.Consent(
                    clientName: party.name, clientID: party.clientID, redirectURI: authorization.redirectURI,
                    scopes: authorization.consentScopes,
                    ticket: OAuthConsentTicket.seal(
                        query: query, ownerID: session.owner.id, expires: now + configuration.consentLifetime,
                        key: consentKey),
                    csrfToken: csrf, owner: session.owner)
                let origin = (OAuthRedirectURI(authorization.redirectURI)?.cspSource)
                    .flatMap(ContentSecurityPolicy.Source.url)
                return HTMLPage.response(
                    .ok, page.render(),
                    policy: origin.map { ContentSecurityPolicy.page.formAction(adding: $0) } ?? .page,
                    setCookies: setCookie.map { [$0] } ?? [])
            }
            return try await issueOpenIDCode(authorization, owner: session.owner, proof: session.proof, now: now)
        }
    }

    /// `POST /oauth/openid-consent`: the CSRF token, the session, the signed request and the whole request again;
    /// deny redirects `access_denied`; approve remembers the consent (recorded in the audit trail) and issues a code.
    func openIDConsent(_ request: HTTPRequest, client address: String?) async throws -> HTTPResponse {
        guard let provider = openID else { return BrowserPage.message(.notFound, "Not found", "No such page.") }
        let fields = request.formFields()
        let ticket = fields["request"] ?? ""
        guard browser.csrfValid(fields, request) else {
            return BrowserPage.message(
                .forbidden, "Sign in?", "The form was too old or came from elsewhere; start again from the app.")
        }
        guard let (owner, token) = try await browser.owner(of: request),
            let proof = try await browser.sessions.proof(token: token)
        else {
            return HTMLPage.redirect(to: Self.signIn(query: OAuthConsentTicket.unverifiedQuery(ticket) ?? ""))
        }
        let now = clock()
        guard let query = OAuthConsentTicket.open(ticket, ownerID: owner.id, now: now, key: consentKey) else {
            return BrowserPage.message(.badRequest, "Sign in?", "This consent form has expired; start again from the app.")
        }
        let items = HTTPRequest.items(ofQuery: query)
        guard let clientID = OAuthAuthorizationRequest.clientID(in: items),
            let party = try await provider.parties.party(id: clientID)
        else { return BrowserPage.message(.badRequest, "Sign in?", "The app is no longer registered.") }
        let authorization: OIDCAuthorizationRequest
        do {
            authorization = try OIDCAuthorizationRequest(items: items, party: party)
        } catch {
            return respond(error)
        }
        switch fields["decision"] {
        case "deny"?: return redirect(authorization, OAuthError("access_denied", "The owner denied the request."))
        case "approve"?: break
        default: return BrowserPage.message(.badRequest, "Sign in?", "Choose Allow or Deny.")
        }
        if let refused = refusal(of: owner, proof, by: party) { return redirect(authorization, refused) }
        try await provider.signIns.remember(
            ownerID: owner.id, clientID: party.clientID, scopes: authorization.consentScopes, now: now)
        await audit.owner(
            owner.id, .appApproved, target: party.clientID, client: address,
            details: AuditDetails.json([
                "client_id": party.clientID, "scopes": authorization.consentScopes.joined(separator: " "), "openid": "true",
            ]))
        return try await issueOpenIDCode(authorization, owner: owner, proof: proof, now: now)
    }

    /// Stores a code for the owner's sign-in and redirects with `code`, `state` and `iss`.
    func issueOpenIDCode(
        _ authorization: OIDCAuthorizationRequest, owner: Owner, proof: OwnerSessionProof, now: Int64
    ) async throws -> HTTPResponse {
        guard let provider = openID else { throw OAuthError.serverError }
        let signIn = OIDCSignIn(
            clientID: authorization.party.clientID, ownerID: owner.id, redirectURI: authorization.redirectURI,
            codeChallenge: authorization.codeChallenge, nonce: authorization.nonce, scopes: authorization.scopes,
            authTime: proof.openedAt, method: proof.methods.stored, sessionDigest: proof.digest,
            claims: authorization.claims)
        let code = try await provider.signIns.issueCode(signIn, now: now, lifetime: configuration.codeLifetime)
        metrics.openIDEvent("code")
        var parameters = [("code", code)]
        if let state = authorization.state { parameters.append(("state", state)) }
        parameters.append(("iss", configuration.issuer))
        return HTMLPage.redirect(to: OAuthURL.appending(parameters, to: authorization.redirectURI))
    }

    /// Why `owner` may not sign in to `party` (its sign-in policy), as the error for the redirect URI; nil: they may.
    func refusal(of owner: Owner, _ proof: OwnerSessionProof, by party: OIDCRelyingParty) -> OAuthError? {
        switch party.signIn {
        case .allOwners: return nil
        case .listed(let owners):
            return owners.contains(owner.id) ? nil : OAuthError("access_denied", "You may not sign in to this app.")
        case .secondFactor:
            // A passkey (possession and user verification in one), or two methods (a password and a TOTP code).
            return proof.methods.isMultiFactor || proof.methods.contains(.passkey)
                ? nil
                : OAuthError("access_denied", "This app needs a sign-in with a passkey or a second factor (a code).")
        }
    }

    /// The sign-in page that comes back to the request; `again` (a new sign-in asked for) drops `prompt=login` from
    /// the request it comes back with and adds `login_since`, which the new session's `auth_time` satisfies.
    static func openIDSignIn(query: String, again: Bool, now: Int64, hint: String?) -> String {
        var back = query
        if again {
            let items = HTTPRequest.items(ofQuery: query).filter { $0.name != "prompt" && $0.name != "login_since" }
            back = PercentEncoding.query(items.map { ($0.name, $0.value) } + [("login_since", String(now))])
        }
        return OwnerService.signInPath(next: "/oauth/authorize?" + back, again: again, email: hint)
    }

    func respond(_ failure: OIDCAuthorizationRequest.Failure) -> HTTPResponse {
        switch failure {
        case .page(let text): return BrowserPage.message(.badRequest, "This app's request is not valid", text)
        case .redirect(let error, let redirectURI, let state): return redirect(redirectURI, state: state, error: error)
        }
    }

    func redirect(_ authorization: OIDCAuthorizationRequest, _ error: OAuthError) -> HTTPResponse {
        redirect(authorization.redirectURI, state: authorization.state, error: error)
    }

    /// The `error_description` of an OpenID prompt error.
    static func words(_ code: String) -> String {
        switch code {
        case "login_required": "The owner is not signed in, or must sign in again, and prompt=none was asked."
        case "consent_required": "The owner has not allowed this app, and prompt=none was asked."
        default: "The request cannot be answered without the owner."
        }
    }
}
