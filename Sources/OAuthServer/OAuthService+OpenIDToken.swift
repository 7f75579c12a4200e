import AuthCrypto
import ComputePool
import HTTP1
import JSON
import JWT
import OAuthGrants
import Owners

extension OAuthService {
    /// The userinfo endpoint's URL: the audience of every access token a relying party gets (it sends no `resource`).
    var userinfoEndpoint: String { configuration.issuer + "/oauth/userinfo" }

    /// `grant_type=authorization_code` for an OpenID relying party (a confidential client the operator made with
    /// redirect URIs): the code checked (single use, this client's, this redirect URI, unexpired), PKCE (unless the
    /// client is a legacy one that sent none), then an access token for the userinfo endpoint and an ID token. A code
    /// presented again revokes the access token its first use issued.
    func exchangeOpenIDCode(_ fields: [String: String], _ client: OAuthConfidentialClient) async throws -> HTTPResponse {
        guard let provider = openID, let party = try await provider.parties.party(id: client.clientID) else {
            throw OAuthError.unauthorizedClient("A confidential client takes tokens with client_credentials only.")
        }
        if let resource = fields["resource"], resource != userinfoEndpoint {
            throw OAuthError.invalidTarget("A relying party's tokens are for the userinfo endpoint only.")
        }
        guard let code = fields["code"], !code.isEmpty else { throw OAuthError.invalidRequest("code is required.") }
        let now = clock()
        let signIn: OIDCSignIn
        switch try await provider.signIns.checkCode(
            code, clientID: party.clientID, redirectURI: fields["redirect_uri"], now: now)
        {
        case .refused(let reason): throw OAuthError.invalidGrant(reason)
        case .replayed:
            try await provider.signIns.revokeReplayed(code, now: now)
            metrics.openIDEvent("code_reuse")
            throw OAuthError.invalidGrant("The authorization code was already used; its tokens are revoked.")
        case .ready(let ready): signIn = ready
        }
        switch (signIn.codeChallenge, fields["code_verifier"]) {
        case (let challenge?, let verifier?) where OAuthPKCE.verifies(verifier, challenge: challenge): break
        case (_?, _): throw OAuthError.invalidGrant("code_verifier does not match the code_challenge (PKCE S256).")
        case (nil, _?): throw OAuthError.invalidGrant("code_verifier was sent, but the request had no code_challenge.")
        case (nil, nil): break  // a legacy client's request without PKCE (checked at the authorization endpoint)
        }
        guard let owner = try await provider.owners.linkCandidate(id: signIn.ownerID) else {
            throw OAuthError.invalidGrant("The owner no longer exists.")
        }
        let jti = SecureRandom.identifier(byteCount: 16)
        let ttl = configuration.accessTokenLifetime
        let (keys, issuer, audience) = (keys, configuration.issuer, userinfoEndpoint)
        let subject = provider.subject(signIn.ownerID, for: party)
        let tokens = try await pool.run(.signing) { () throws -> (String, String) in
            var access = JWTClaims(
                issuer: issuer, subject: subject, purpose: .oauthAccess, issuedAt: now, ttl: ttl, jti: jti)
            access["aud"] = .string(audience)
            access["client_id"] = .string(signIn.clientID)
            let accessToken = try keys.sign(access, for: .oauthAccess)
            let idToken = OIDCIDToken(
                issuer: issuer, signIn: signIn, subject: subject, email: owner.owner.email, emailVerified: owner.emailVerified,
                issuedAt: now, lifetime: OIDCProvider.idTokenLifetime, accessToken: accessToken,
                algorithm: party.idTokenAlgorithm, sessionID: Self.sessionID(signIn.sessionDigest))
            return (accessToken, try keys.sign(idToken.claims, algorithm: Self.jwtAlgorithm(party.idTokenAlgorithm)))
        }
        guard
            try await provider.signIns.redeem(code, signIn: signIn, jti: jti, expiresAt: now + ttl, now: now)
        else {
            metrics.openIDEvent("code_reuse")
            throw OAuthError.invalidGrant("The authorization code was already used; its tokens are revoked.")
        }
        metrics.codesRedeemed.increment()
        metrics.openIDEvent("id_token")
        return OAuthJSON.response(
            .ok,
            .object([
                ("access_token", .string(tokens.0)), ("token_type", .string("Bearer")), ("expires_in", .int(ttl)),
                ("id_token", .string(tokens.1)), ("scope", .string(signIn.scopes.joined(separator: " "))),
            ]))
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
        /// The subject the relying party knows the owner by, which the token carries as `sub`.
        let subject: String
        let scopes: [String]
        /// The claims asked for userinfo by name.
        let claims: OIDCClaimsRequest
        let jti: String
        let issuedAt: Int64
        let expiresAt: Int64
    }

    /// `token` when it is an access token this issuer signed for the userinfo endpoint, unexpired, unrevoked
    /// (`oidc_access_tokens`), whose `sub` is the subject its relying party knows its owner by.
    func liveOpenIDAccessToken(_ token: String, now: Int64) async throws -> OpenIDAccessToken? {
        guard let provider = openID else { return nil }
        let policy = JWTPolicy(
            purpose: .oauthAccess, issuer: configuration.issuer, maximumLifetime: configuration.accessTokenLifetime,
            audience: userinfoEndpoint)
        guard let claims = try? keys.verify(token, policy: policy, now: now), let jti = claims.jti,
            let issuedAt = claims.iat, let expiresAt = claims.exp,
            let live = try await provider.signIns.accessToken(jti: jti, now: now),
            let party = try await provider.parties.party(id: live.clientID),
            case let subject = provider.subject(live.ownerID, for: party), subject == claims.sub
        else { return nil }
        return OpenIDAccessToken(
            ownerID: live.ownerID, clientID: live.clientID, subject: subject, scopes: live.scopes, claims: live.claims,
            jti: jti, issuedAt: issuedAt, expiresAt: expiresAt)
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
