import AuthCrypto
import ComputePool
import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants
import Owners

extension OAuthService {
    /// The userinfo endpoint's URL: the audience of every access token a relying party gets (it sends no `resource`),
    /// unless its sign-in was granted mail.
    var userinfoEndpoint: String { configuration.issuer + "/oauth/userinfo" }

    /// The mail resource (`<issuer>/jmap`): the audience of a mail grant's access tokens, which the mail doors take.
    var mailResource: String { configuration.issuer + "/jmap" }

    /// `grant_type=authorization_code` for an OpenID relying party (a confidential client the operator made with
    /// redirect URIs): the code checked (single use, this client's, this redirect URI, unexpired), PKCE (unless the
    /// client is a legacy one that sent none), then an access token for the userinfo endpoint and an ID token. A
    /// sign-in granted mail scopes (a relying party with ``OIDCRelyingParty/mailAccess``) gets instead an access token
    /// for the mail resource, which opens userinfo too, and a refresh token: its ``OIDCMailGrant``. A code presented
    /// again revokes the access token its first use issued, and its mail grant.
    func exchangeOpenIDCode(_ fields: [String: String], _ client: OAuthConfidentialClient) async throws -> HTTPResponse {
        guard let provider = openID else { throw Self.notRelyingParty }
        let (party, code) = try openIDExchange(fields, party: try await provider.parties.party(id: client.clientID))
        let now = clock()
        let signIn: OIDCSignIn
        switch try await provider.signIns.checkCode(
            code, clientID: party.clientID, redirectURI: fields["redirect_uri"], now: now)
        {
        case .refused(let reason): throw OAuthError.invalidGrant(reason)
        case .replayed:
            try await provider.signIns.revokeReplayed(code, now: now)
            throw openIDCodeReused()
        case .ready(let ready): signIn = ready
        }
        try Self.checkVerifier(of: signIn, fields["code_verifier"])
        guard let owner = try await provider.owners.linkCandidate(id: signIn.ownerID) else { throw Self.ownerGone }
        let issue = openIDIssue(signIn, party: party, provider: provider, now: now)
        let tokens = try await pool.run(.signing) { [self] in try signOpenIDTokens(issue, owner: owner, now: now) }
        guard
            try await provider.signIns.redeem(
                code, signIn: signIn, jti: issue.jti, expiresAt: now + issue.ttl, now: now, mail: issue.mail)
        else { throw openIDCodeReused() }
        return openIDTokenResponse(issue, tokens)
    }

    /// What a relying party's code redeemed hands out, drawn before anything is signed: the access token's `jti` and
    /// lifetime, the mail grant (when the sign-in has one), the subject the party knows the owner by.
    struct OpenIDIssue: Sendable {
        let signIn: OIDCSignIn
        let party: OIDCRelyingParty
        let jti: String
        let ttl: Int64
        let mail: (grant: OIDCMailGrant, issue: OAuthIssue)?
        let subject: String
    }

    /// The answer to a confidential client that is no relying party.
    static let notRelyingParty = OAuthError.unauthorizedClient(
        "A confidential client takes tokens with client_credentials only.")
    /// The answer to a code whose owner was deleted since.
    static let ownerGone = OAuthError.invalidGrant("The owner no longer exists.")

    /// The checks of a relying party's exchange before its code is read: the client is a relying party (`party`), the
    /// `resource` is none, the userinfo endpoint or the mail resource, and a code is presented. Returns the party and
    /// the code.
    func openIDExchange(_ fields: [String: String], party: OIDCRelyingParty?) throws(OAuthError)
        -> (OIDCRelyingParty, code: String)
    {
        guard let party else { throw Self.notRelyingParty }
        if let resource = fields["resource"], resource != userinfoEndpoint, resource != mailResource {
            throw .invalidTarget("A relying party's tokens are for the userinfo endpoint or the mail resource.")
        }
        guard let code = fields["code"], !code.isEmpty else { throw .invalidRequest("code is required.") }
        return (party, code)
    }

    /// PKCE for a ready sign-in: `verifier` matches the code's challenge, or neither was sent (a legacy client's
    /// request without PKCE, checked at the authorization endpoint).
    static func checkVerifier(of signIn: OIDCSignIn, _ verifier: String?) throws(OAuthError) {
        switch (signIn.codeChallenge, verifier) {
        case (let challenge?, let verifier?) where OAuthPKCE.verifies(verifier, challenge: challenge): break
        case (_?, _): throw .invalidGrant("code_verifier does not match the code_challenge (PKCE S256).")
        case (nil, _?): throw .invalidGrant("code_verifier was sent, but the request had no code_challenge.")
        case (nil, nil): break  // a legacy client's request without PKCE (checked at the authorization endpoint)
        }
    }

    /// A presented code found used (before, or by a racing request): counted, and the refusal.
    func openIDCodeReused() -> OAuthError {
        metrics.openIDEvent("code_reuse")
        return .invalidGrant("The authorization code was already used; its tokens are revoked.")
    }

    /// What redeeming `signIn`'s code for `party` hands out at `now` (nothing signed yet).
    func openIDIssue(_ signIn: OIDCSignIn, party: OIDCRelyingParty, provider: OIDCProvider, now: Int64) -> OpenIDIssue {
        let jti = SecureRandom.identifier(byteCount: 16)
        return OpenIDIssue(
            signIn: signIn, party: party, jti: jti, ttl: configuration.accessTokenLifetime,
            mail: mailGrant(of: signIn, party: party, jti: jti, now: now),
            subject: provider.subject(signIn.ownerID, for: party))
    }

    /// Signs `issue`'s access token (for the userinfo endpoint, or the mail grant's for the mail resource; EdDSA) and
    /// its ID token (the party's algorithm, RS256 by default), which carries `owner`'s claims and the access token's
    /// `at_hash`: CPU work well under a millisecond, made on the worker pool's signing lane or on an event loop.
    func signOpenIDTokens(_ issue: OpenIDIssue, owner: OwnerLinkCandidate, now: Int64) throws
        -> (access: String, id: String)
    {
        let (signIn, issuer) = (issue.signIn, configuration.issuer)
        let accessToken: String
        if let mail = issue.mail {
            accessToken = try keys.sign(
                OAuthAccessClaims(
                    ownerID: signIn.ownerID, clientID: signIn.clientID, resource: mail.grant.resource,
                    permissions: mail.grant.permissions, jti: issue.jti
                ).claims(issuer: issuer, issuedAt: now, ttl: issue.ttl), for: OAuthAccessClaims.purpose)
        } else {
            var access = JWTClaims(
                issuer: issuer, subject: issue.subject, purpose: .oauthAccess, issuedAt: now, ttl: issue.ttl,
                jti: issue.jti)
            access["aud"] = .string(userinfoEndpoint)
            access["client_id"] = .string(signIn.clientID)
            accessToken = try keys.sign(access, for: .oauthAccess)
        }
        let idToken = OIDCIDToken(
            issuer: issuer, signIn: signIn, subject: issue.subject, email: owner.owner.email,
            emailVerified: owner.emailVerified, issuedAt: now, lifetime: OIDCProvider.idTokenLifetime,
            accessToken: accessToken, algorithm: issue.party.idTokenAlgorithm,
            sessionID: Self.sessionID(signIn.sessionDigest))
        return (accessToken, try keys.sign(idToken.claims, algorithm: Self.jwtAlgorithm(issue.party.idTokenAlgorithm)))
    }

    /// The token response of a redeemed code, counted: the access token, the ID token, and the mail grant's refresh
    /// token when there is one.
    func openIDTokenResponse(_ issue: OpenIDIssue, _ tokens: (access: String, id: String)) -> HTTPResponse {
        metrics.codesRedeemed.increment()
        metrics.openIDEvent("id_token")
        var members: [(String, JSONValue)] = [
            ("access_token", .string(tokens.access)), ("token_type", .string("Bearer")), ("expires_in", .int(issue.ttl)),
            ("id_token", .string(tokens.id)), ("scope", .string(issue.signIn.scopes.joined(separator: " "))),
        ]
        if let mail = issue.mail {
            metrics.openIDEvent("mail_grant")
            members.append(("refresh_token", .string(mail.issue.refreshToken)))
        }
        return OAuthJSON.response(.ok, .object(members))
    }

    /// The mail grant a redeemed code makes, with its first tokens (the access token `jti`): when the sign-in asked for
    /// mail scopes and the relying party may still have them (the operator's setting is read again at redemption);
    /// nil otherwise.
    func mailGrant(of signIn: OIDCSignIn, party: OIDCRelyingParty, jti: String, now: Int64)
        -> (grant: OIDCMailGrant, issue: OAuthIssue)?
    {
        let permissions = OIDCAuthorizationRequest.mailPermissions(signIn.scopes).intersection(party.mailAccess ?? [])
        guard !permissions.isEmpty else { return nil }
        let grant = OIDCMailGrant(
            id: OIDCSignIns.newGrantID(), clientID: signIn.clientID, ownerID: signIn.ownerID, scopes: signIn.scopes,
            permissions: permissions, resource: mailResource, expiresAt: now + configuration.grantLifetime)
        return (grant, mailIssue(grant, jti: jti, now: now))
    }

    /// The tokens of one answer for `grant`: the access token `jti` and a new refresh token, each ending no later than
    /// the grant.
    func mailIssue(_ grant: OIDCMailGrant, jti: String, now: Int64) -> OAuthIssue {
        OAuthIssue(
            refreshToken: OAuthDigest.newToken(),
            refreshExpiresAt: min(now + configuration.refreshTokenLifetime, grant.expiresAt), jti: jti,
            accessExpiresAt: now + min(configuration.accessTokenLifetime, grant.expiresAt - now))
    }

    /// `GET` and `POST /oauth/userinfo` (Core section 5.3) with a relying party's bearer token: `sub`, and by the
    /// token's scopes `email`, `email_verified`, `preferred_username`, then what the `claims` parameter asked for
    /// userinfo by name (`email`, `email_verified`, `name`). A missing or bad token is 401 with a Bearer
    /// challenge (RFC 6750 section 3).
    func userinfo(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let provider = openID else { return OAuthError("not_found", "No such OAuth endpoint.", status: .notFound).response }
        var token = request.bearerToken
        if token == nil, request.method == .POST, request.contentTypeIsForm {
            token = request.formFields()["access_token"]
        }
        guard let token else { return Self.bearerRefusal(nil) }
        guard let live = try await liveOpenIDAccessToken(token, now: clock()),
            let owner = try await provider.owners.linkCandidate(id: live.ownerID)
        else { return Self.bearerRefusal("invalid_token") }
        let members: [(String, JSONValue)] =
            [("sub", .string(live.subject))]
            + OIDCIDToken.ownerClaims(
                .userinfo, scopes: live.scopes, claims: live.claims, email: owner.owner.email,
                emailVerified: owner.emailVerified)
        return OAuthJSON.response(.ok, .object(members))
    }

    /// A live access token of a relying party: what userinfo and introspection answer from.
    struct OpenIDAccessToken {
        let ownerID: String
        let clientID: String
        /// The subject the relying party knows the owner by (its ID token's `sub`), which userinfo answers.
        let subject: String
        /// The token's audience: the userinfo endpoint, or the mail resource for a mail grant's token.
        let audience: String
        let scopes: [String]
        /// The claims asked for userinfo by name.
        let claims: OIDCClaimsRequest
        let jti: String
        let issuedAt: Int64
        let expiresAt: Int64
    }

    /// `token` when it is an access token this issuer signed for a relying party (``openIDBearer(_:now:)``),
    /// unexpired, unrevoked (`oidc_access_tokens`, and its mail grant live), whose `sub` is the subject its relying
    /// party knows its owner by (a userinfo token) or the owner's id (a mail grant's token, which the mail doors read).
    func liveOpenIDAccessToken(_ token: String, now: Int64) async throws -> OpenIDAccessToken? {
        guard let provider = openID, let bearer = openIDBearer(token, now: now),
            let live = try await provider.signIns.accessToken(jti: bearer.jti, now: now),
            let party = try await provider.parties.party(id: live.clientID),
            case let subject = provider.subject(live.ownerID, for: party),
            bearer.subject == (bearer.audience == mailResource ? live.ownerID : subject)
        else { return nil }
        return OpenIDAccessToken(
            ownerID: live.ownerID, clientID: live.clientID, subject: subject, audience: bearer.audience,
            scopes: live.scopes, claims: live.claims, jti: bearer.jti, issuedAt: bearer.issuedAt,
            expiresAt: bearer.expiresAt)
    }

    /// The subject, `jti`, audience and times of a relying party's access token: one for the userinfo endpoint, or a
    /// mail grant's (for the mail resource). Only the signature, issuer, purpose, lifetime and audience are checked
    /// here; the token's row in `oidc_access_tokens` must then say it is a relying party's and live (an OAuth app's
    /// token for `/jmap` has none, so it never opens userinfo).
    func openIDBearer(_ token: String, now: Int64)
        -> (subject: String, jti: String, audience: String, issuedAt: Int64, expiresAt: Int64)?
    {
        let policy = JWTPolicy(
            purpose: .oauthAccess, issuer: configuration.issuer, maximumLifetime: configuration.accessTokenLifetime,
            audience: userinfoEndpoint)
        if let claims = try? keys.verify(token, policy: policy, now: now), let subject = claims.sub,
            let jti = claims.jti, let issuedAt = claims.iat, let expiresAt = claims.exp
        {
            return (subject, jti, userinfoEndpoint, issuedAt, expiresAt)
        }
        guard
            let verified = try? keys.verifyWithLifetime(
                token, as: OAuthAccessClaims.self,
                policy: OAuthAccessClaims.policy(issuer: configuration.issuer, lifetime: configuration.accessTokenLifetime),
                now: now),
            verified.claims.resource == mailResource
        else { return nil }
        return (verified.claims.ownerID, verified.claims.jti, mailResource, verified.issuedAt, verified.expiresAt)
    }

    /// 401 with `WWW-Authenticate: Bearer` (and the error, when a token was presented).
    static func bearerRefusal(_ error: String?) -> HTTPResponse {
        var response = OAuthJSON.response(
            .unauthorized,
            .object([
                ("error", .string(error ?? "invalid_request")),
                ("error_description", .string(error == nil ? "A bearer token is required." : "The token is not valid.")),
            ]))
        response.headers.add(
            "WWW-Authenticate", #"Bearer realm="userinfo""# + (error.map { #", error="\#($0)""# } ?? ""))
        return response
    }

    /// The session id (`sid`) an owner session is known to relying parties by: base64url of SHA-256 over the
    /// session's digest, so that neither the cookie nor the stored digest can be derived from it.
    static func sessionID(_ digest: [UInt8]) -> String { Base64URL.encode(SHA256.hash(digest)) }

    static func jwtAlgorithm(_ algorithm: OIDCRelyingParty.SigningAlgorithm) -> JWTAlgorithm {
        switch algorithm {
        case .rs256: .rs256
        case .edDSA: .edDSA
        case .es256: .es256
        }
    }
}
