import AuthCrypto
import BrowserPages
import HTTP1
import JSON
import JWT
import OAuthGrants
import Owners
import ServerKit

extension OAuthService {
    /// The end-session endpoint (OpenID Connect RP-Initiated Logout 1.0), `GET` or `POST /oauth/logout`:
    /// `post_logout_redirect_uri` only when the relying party (named by `client_id` or the hint's `aud`) registered
    /// it; with a valid `id_token_hint` of the signed-in owner the session ends at once, otherwise after the owner
    /// confirms. Ending the session sends a logout token to every relying party it signed into that registered a
    /// back-channel logout URI (Back-Channel Logout 1.0), then redirects with `state`, or shows a signed-out page.
    func endSession(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let provider = openID else { return BrowserPage.message(.notFound, "Not found", "No such page.") }
        let isPost = request.method == .POST
        let fields = isPost ? request.formFields() : Dictionary(
            request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let now = clock()
        let hint = fields["id_token_hint"].flatMap { idTokenHint($0) }
        if fields["id_token_hint"] != nil, hint == nil {
            return BrowserPage.message(.badRequest, "Sign out", "The app's id_token_hint is not one this server issued.")
        }
        let clientID = fields["client_id"] ?? hint?.clientID
        if let named = fields["client_id"], let hinted = hint?.clientID, named != hinted {
            return BrowserPage.message(.badRequest, "Sign out", "client_id differs from the id_token_hint's audience.")
        }
        var party: OIDCRelyingParty?
        if let clientID { party = try await provider.parties.party(id: clientID) }
        let back = fields["post_logout_redirect_uri"]
        if let back, !(party?.postLogoutRedirectURIs.contains(back) ?? false) {
            return BrowserPage.message(
                .badRequest, "Sign out", "The app asked to send you to an address it did not register.")
        }
        let done: HTTPResponse = back.map { uri in
            HTMLPage.redirect(
                to: fields["state"].map { OAuthURL.appending([("state", $0)], to: uri) } ?? uri,
                setCookies: [browser.clearCookie(OwnerBrowser.sessionCookie)])
        } ?? {
            var page = BrowserPage.message(.ok, "Signed out", "You are signed out of this server and its apps.")
            page.headers.add("Set-Cookie", browser.clearCookie(OwnerBrowser.sessionCookie))
            return page
        }()
        guard let (owner, token) = try await browser.owner(of: request),
            let proof = try await browser.sessions.proof(token: token)
        else { return done }
        let confirmed = isPost && fields["confirm"] == "yes" && browser.csrfValid(fields, request)
        // The hint names the owner by the subject its relying party knows them by (pairwise or public).
        if !confirmed, hint?.subject != party.map({ provider.subject(owner.id, for: $0) }) ?? owner.id {
            let (csrf, setCookie) = browser.csrf(for: request)
            let carried = ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"].compactMap { name in
                fields[name].map { (name, $0) }
            }
            return HTMLPage.response(
                .ok, OIDCPages.LogoutQuestion(parameters: carried, csrfToken: csrf, owner: owner).render(),
                setCookies: setCookie.map { [$0] } ?? [])
        }
        try await browser.sessions.close(token: token)
        metrics.openIDEvent("logout")
        await backChannelLogout(session: proof.digest, now: now)
        return done
    }

    /// Tells every relying party session `digest` signed into that it ended: a logout token (`iss`, `aud`, `iat`,
    /// `exp`, `jti`, `sub`, `sid`, `events`) POSTed to its back-channel logout URI, all at once, each bounded by the
    /// fetcher's timeouts.
    func backChannelLogout(session digest: [UInt8], now: Int64) async {
        guard let provider = openID,
            let signedInto = try? await provider.signIns.endSession(digest: digest, now: now)
        else { return }
        let sessionID = Self.sessionID(digest)
        await withTaskGroup(of: Bool.self) { group in
            for (clientID, ownerID) in signedInto {
                guard let party = try? await provider.parties.party(id: clientID), let uri = party.backchannelLogoutURI,
                    let deliver = provider.logout
                else { continue }
                let claims = JWTClaims([
                    ("iss", .string(configuration.issuer)), ("aud", .string(clientID)), ("iat", .int(now)),
                    ("exp", .int(now + 120)), ("jti", .string(SecureRandom.identifier(byteCount: 16))),
                    ("sub", .string(provider.subject(ownerID, for: party))), ("sid", .string(sessionID)),
                    ("events", .object([(OIDCProvider.logoutEvent, .object([]))])),
                ])
                guard let token = try? keys.sign(claims, algorithm: Self.jwtAlgorithm(party.idTokenAlgorithm)) else {
                    continue
                }
                group.addTask { await deliver.deliverLogout(token: token, to: uri) }
            }
            for await delivered in group { metrics.openIDEvent(delivered ? "backchannel_delivered" : "backchannel_failed") }
        }
    }

    /// The relying party and owner an `id_token_hint` names, when it is an ID token this issuer signed with a key of
    /// its JWKS (an expired one is still a hint: RP-Initiated Logout 1.0 section 2).
    func idTokenHint(_ token: String) -> (clientID: String, subject: String)? {
        guard let keys = try? PublishedKeySet(jwks: keys.jwksJSON()), let claims = try? keys.verify(token),
            claims.iss == configuration.issuer, let clientID = claims["aud"]?.stringValue, let subject = claims.sub,
            claims["azp"]?.stringValue == clientID
        else { return nil }
        return (clientID, subject)
    }
}
