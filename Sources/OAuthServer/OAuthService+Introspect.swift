import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants

extension OAuthService {
    /// `POST /oauth/introspect` (RFC 7662) for a confidential client made with `--introspection` (a resource server):
    /// whether `token` is live, and what it is. Postern's own OAuth access tokens (an owner's, or a client's own from
    /// the client credentials grant: live while their grant is), a relying party's (live in `oidc_access_tokens`),
    /// refresh tokens (current, of a live grant) and the agent surface's capability tokens (their inbox still local).
    /// Anything else, an expired, revoked or superseded token included, is exactly `{"active":false}`.
    /// `token_type_hint` is not needed: every kind is tried.
    ///
    /// A client whose credentials fail is 401 `invalid_client` (RFC 7662 section 2.3); an authenticated client made
    /// without `--introspection` is 403 `unauthorized_client`.
    func introspect(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (fields, authenticated): ([String: String], OAuthAuthenticatedClient)
        do {
            (fields, authenticated) = try await authenticatedForm(request, endpoint: introspectionEndpoint)
        } catch let error as OAuthError where error.code == "invalid_client" {
            throw OAuthError(error.code, error.description, status: .unauthorized, challenge: error.challenge)
        }
        guard case .confidential(let client) = authenticated, client.introspection else {
            throw OAuthError(
                "unauthorized_client", "This client may not introspect (postern oauth client create --introspection).",
                status: .forbidden)
        }
        guard let token = fields["token"], !token.isEmpty else { throw OAuthError.invalidRequest("token is required.") }
        metrics.introspections.increment()
        let members = try await introspection(of: token, now: clock()) ?? [("active", .bool(false))]
        return OAuthJSON.response(.ok, .object(members))
    }

    /// The introspection endpoint's URL.
    var introspectionEndpoint: String { configuration.issuer + "/oauth/introspect" }

    /// The members of an active token's answer; nil when it is not active.
    func introspection(of token: String, now: Int64) async throws -> [(String, JSONValue)]? {
        if token.utf8.count > PublishedKeySet.maximumTokenLength { return nil }
        if token.utf8.contains(UInt8(ascii: ".")) {
            if let active = try await accessTokenIntrospection(token, now: now) { return active }
            if let active = try await openIDAccessTokenIntrospection(token, now: now) { return active }
            return try await capabilityIntrospection(token, now: now)
        }
        guard let state = try await grants.liveRefreshToken(token, now: now) else { return nil }
        return [
            ("active", .bool(true)), ("scope", .string(state.grant.permissions.scope)),
            ("client_id", .string(state.grant.clientID)), ("sub", .string(state.grant.ownerID)),
            ("aud", .string(state.grant.resource)), ("iss", .string(configuration.issuer)),
            ("exp", .int(state.expiresAt)), ("iat", .int(state.issuedAt)), ("token_type", .string("refresh_token")),
        ]
    }

    /// An access token of this issuer whose grant (an owner's, a client's own, or a delegated token's) is live and
    /// agrees with it; a delegated token's answer carries its `act`. Checked as the resource side checks it
    /// (``OAuthTokenVerifier``): the signature of bytes seen before is not checked again while their token lives and
    /// its key is kept; the grant comes from the cache of live grants where revocations reach it, and is read
    /// otherwise, in the table the token's kind names first.
    private func accessTokenIntrospection(_ token: String, now: Int64) async throws -> [(String, JSONValue)]? {
        guard let verified = try? accessTokens.verify(token, now: now) else { return nil }
        return liveAccessTokenMembers(
            verified, grant: try await accessTokens.record(for: verified.claims, now: now), now: now)
    }

    /// The answer's members for the access token `verified` when `grant`, its grant as read, is live at `now` and
    /// agrees with its claims; nil otherwise. Both introspection paths end here and differ only in how they read the
    /// grant: ``accessTokenIntrospection(_:now:)`` from the cache or in a task, ``introspectionNow(_:)`` on the loop
    /// thread's own connection.
    func liveAccessTokenMembers(_ verified: JWTVerified<OAuthAccessClaims>, grant: OAuthGrantRecord?, now: Int64)
        -> [(String, JSONValue)]?
    {
        guard let grant, grant.isLive(at: now), grant.matches(verified.claims) else { return nil }
        return accessTokenMembers(verified)
    }

    /// The answer's members for the live access token `verified`.
    private func accessTokenMembers(_ verified: JWTVerified<OAuthAccessClaims>) -> [(String, JSONValue)] {
        let claims = verified.claims
        var members: [(String, JSONValue)] = [
            ("active", .bool(true)), ("scope", .string(claims.permissions.scope)),
            ("client_id", .string(claims.clientID)), ("sub", .string(claims.ownerID)),
            ("aud", .string(claims.resource)), ("iss", .string(configuration.issuer)),
            ("exp", .int(verified.expiresAt)), ("iat", .int(verified.issuedAt)), ("jti", .string(claims.jti)),
            ("token_type", .string("Bearer")),
        ]
        // A delegated token says who acts (RFC 8693 section 4.1; RFC 7662 lets the answer carry any claim).
        if let act = claims.act { members.append(("act", act.claim)) }
        return members
    }

    /// An access token a relying party holds (audience: the userinfo endpoint; a mail grant's token is answered above,
    /// as its grant's), live in `oidc_access_tokens`; `sub` is the subject that party knows the owner by, as in its ID
    /// token and at userinfo.
    private func openIDAccessTokenIntrospection(_ token: String, now: Int64) async throws -> [(String, JSONValue)]? {
        guard let live = try await liveOpenIDAccessToken(token, now: now) else { return nil }
        return [
            ("active", .bool(true)), ("scope", .string(live.scopes.joined(separator: " "))),
            ("client_id", .string(live.clientID)), ("sub", .string(live.subject)), ("aud", .string(live.audience)),
            ("iss", .string(configuration.issuer)), ("exp", .int(live.expiresAt)), ("iat", .int(live.issuedAt)),
            ("jti", .string(live.jti)), ("token_type", .string("Bearer")),
        ]
    }

    /// A capability token of the agent surface whose inbox is still a local mailbox.
    private func capabilityIntrospection(_ token: String, now: Int64) async throws -> [(String, JSONValue)]? {
        guard let capabilityTokens,
            let verified = try? keys.verifyWithLifetime(
                token, as: CapabilityClaims.self, policy: capabilityTokens.policy, now: now),
            case let claims = verified.claims,
            case .local = try await capabilityTokens.directory.resolve(claims.inbox),
            let audience = capabilityTokens.policy.audience
        else { return nil }
        return [
            ("active", .bool(true)), ("scope", .string(CapabilityClaims.jmapScope)), ("sub", .string(claims.accountID)),
            ("aud", .string(audience)), ("iss", .string(capabilityTokens.policy.issuer)),
            ("exp", .int(verified.expiresAt)), ("iat", .int(verified.issuedAt)), ("username", .string(claims.inbox)),
            ("token_type", .string("Bearer")),
        ]
    }
}
