import AuthCrypto
import ComputePool
import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants

extension OAuthService {
    /// `POST /oauth/token` (contract 1.4): `authorization_code` with PKCE, `refresh_token` with rotation and (when on)
    /// the device code (RFC 8628) for registered clients, `client_credentials` for the operator's confidential clients
    /// (when on). Every answer is
    /// `Cache-Control: no-store`; errors are `{"error","error_description"}` with 400 (401 for `invalid_client`
    /// over Basic).
    /// - Parameter address: the client's address, for the audit line of a client credentials grant.
    func token(_ request: HTTPRequest, from address: String?) async throws -> HTTPResponse {
        let (fields, authenticated) = try await authenticatedForm(request, endpoint: configuration.tokenEndpoint)
        let grantType = fields["grant_type"]
        switch (grantType, authenticated) {
        case ("authorization_code"?, .registered(let client)): return try await exchangeCode(fields, client)
        case ("refresh_token"?, .registered(let client)): return try await refresh(fields, client)
        case ("client_credentials"?, .confidential(let client)) where configuration.clientCredentials:
            return try await clientCredentials(fields, client, from: address)
        case ("authorization_code"?, .confidential(let client)) where openID != nil:
            return try await exchangeOpenIDCode(fields, client)
        case ("refresh_token"?, .confidential(let client)) where openID != nil:
            return try await refreshOpenID(fields, client)
        case (OAuthClientRegistration.deviceCodeGrantType?, .registered(let client)) where configuration.deviceAuthorization:
            return try await redeemDeviceCode(fields, client)
        case (OAuthClientRegistration.deviceCodeGrantType?, .confidential) where configuration.deviceAuthorization:
            throw OAuthError.unauthorizedClient("A confidential client takes tokens with client_credentials only.")
        case (let grant?, _) where delegationGrantTypes.contains(grant):
            return try await delegation(grant, fields, authenticated, from: address)
        case (nil, _), (""?, _): throw OAuthError.invalidRequest("grant_type is required.")
        case ("authorization_code"?, .confidential), ("refresh_token"?, .confidential):
            throw OAuthError.unauthorizedClient("A confidential client takes tokens with client_credentials only.")
        case ("client_credentials"?, .registered) where configuration.clientCredentials:
            throw OAuthError.unauthorizedClient(
                "client_credentials is for the operator's confidential clients (postern oauth client create).")
        default:
            throw OAuthError.unsupportedGrantType("grant_type must be \(supportedGrantTypes.joined(separator: ", ")).")
        }
    }

    /// The grant types served, in the order the metadata lists them.
    var supportedGrantTypes: [String] { Self.supportedGrantTypes(configuration) + delegationGrantTypes }

    /// The grant types `configuration` serves besides the delegation grants, in the order the metadata lists them.
    static func supportedGrantTypes(_ configuration: OAuthConfiguration) -> [String] {
        ["authorization_code", "refresh_token"] + (configuration.clientCredentials ? ["client_credentials"] : [])
            + (configuration.deviceAuthorization ? [OAuthClientRegistration.deviceCodeGrantType] : [])
    }

    // MARK: - authorization_code

    func exchangeCode(_ fields: [String: String], _ client: OAuthClient) async throws -> HTTPResponse {
        guard let code = fields["code"], !code.isEmpty else { throw OAuthError.invalidRequest("code is required.") }
        guard let verifier = fields["code_verifier"], !verifier.isEmpty else {
            throw OAuthError.invalidRequest("code_verifier is required (PKCE S256).")
        }
        let now = clock()
        let (redirectURI, resource) = (fields["redirect_uri"], fields["resource"])
        let step = try await pool.run(.signing) { [self] () throws -> CodeStep in
            switch try grants.checkCode(code, clientID: client.clientID, redirectURI: redirectURI, now: now) {
            case .refused(let reason): return .refused(.invalidGrant(reason))
            case .replayed(let grantID): return .replayed(grantID)
            case .ready(let grant, let challenge):
                guard OAuthPKCE.verifies(verifier, challenge: challenge) else {
                    return .refused(.invalidGrant("code_verifier does not match the code_challenge."))
                }
                if let resource, resource != grant.resource {
                    return .refused(.invalidTarget("resource differs from the one authorized."))
                }
                return .ready(grant, try mint(grant, permissions: grant.permissions, now: now))
            }
        }
        switch step {
        case .replayed(let grantID):
            try await grants.revoke(grantID: grantID, now: now)
            metrics.codeReuses.increment()
            throw OAuthError.invalidGrant("The authorization code was already used; its tokens are revoked.")
        case .refused(let error):
            throw error
        case .ready(let grant, let minted):
            guard try await grants.redeem(code, grant: grant, issue: minted.issue, now: now) else {
                metrics.codeReuses.increment()
                throw OAuthError.invalidGrant("The authorization code was already used; its tokens are revoked.")
            }
            metrics.codesRedeemed.increment()
            return tokenResponse(minted, permissions: grant.permissions, withRefreshToken: client.refreshes)
        }
    }

    // MARK: - refresh_token

    func refresh(_ fields: [String: String], _ client: OAuthClient) async throws -> HTTPResponse {
        guard client.refreshes else {
            throw OAuthError.unauthorizedClient("This client did not register the refresh_token grant type.")
        }
        guard let token = fields["refresh_token"], !token.isEmpty else {
            throw OAuthError.invalidRequest("refresh_token is required.")
        }
        let requested = try Self.requestedPermissions(fields["scope"])
        let now = clock()
        let resource = fields["resource"]
        let check = try await pool.run(.signing) { [self] () throws -> RefreshStep in
            switch try grants.checkRefresh(token, clientID: client.clientID, now: now) {
            case .refused(let reason): return .refused(.invalidGrant(reason))
            case .superseded(let grant): return try ready(grant, sawSuperseded: true)
            case .ready(let grant): return try ready(grant, sawSuperseded: false)
            }
            /// What a rotation of `grant`'s token would hand out (a superseded token's retry is rotated too).
            func ready(_ grant: OAuthGrant, sawSuperseded: Bool) throws -> RefreshStep {
                if let resource, resource != grant.resource {
                    return .refused(.invalidTarget("resource differs from the one authorized."))
                }
                let permissions = requested ?? grant.permissions
                guard grant.permissions.isSuperset(of: permissions) else {
                    return .refused(.invalidScope("scope is wider than the grant's (\(grant.permissions.scope))."))
                }
                return .ready(
                    grant, permissions, try mint(grant, permissions: permissions, now: now), sawSuperseded: sawSuperseded)
            }
        }
        let (grant, permissions, minted, sawSuperseded): (OAuthGrant, MailPermissions, Minted, Bool)
        switch check {
        case .refused(let error): throw error
        case .ready(let ready, let wanted, let made, let superseded): (grant, permissions, minted, sawSuperseded) = (ready, wanted, made, superseded)
        }
        let rotation = try await grants.rotate(
            token, grant: grant, issue: minted.issue, sawSuperseded: sawSuperseded, now: now,
            raceWindow: configuration.refreshRaceWindow, retryWindow: configuration.refreshRetryWindow)
        try counted(rotation)
        return tokenResponse(minted, permissions: permissions)
    }

    /// Counts a refresh token's rotation (an app's or a relying party's) and throws the refusal of one that issued
    /// nothing: a lost race, a reuse (its grant revoked), a token expired or revoked meanwhile.
    func counted(_ rotation: OAuthGrantStore.Rotation) throws(OAuthError) {
        switch rotation {
        case .rotated, .retried:
            metrics.refreshes.increment()
        case .lostRace:
            metrics.refreshRaces.increment()
            throw .invalidGrant("The refresh token was just used by another request.")
        case .reused:
            metrics.refreshReuses.increment()
            throw .invalidGrant("The refresh token was already used; the grant is revoked.")
        case .gone:
            throw .invalidGrant("The refresh token has expired or its grant was revoked.")
        }
    }

    /// The permissions a refresh asks for; nil when it names none (then the grant's).
    static func requestedPermissions(_ scope: String?) throws(OAuthError) -> MailPermissions? {
        guard let scope, !scope.isEmpty else { return nil }
        guard let permissions = MailPermissions(scope: scope) else {
            throw .invalidScope("scope may name only mail.read and mail.send.")
        }
        return permissions
    }

    enum CodeStep: Sendable {
        case ready(OAuthGrant, Minted)
        case replayed(String)
        case refused(OAuthError)
    }

    enum RefreshStep: Sendable {
        /// Rotate (the token was seen superseded: only a retry may be).
        case ready(OAuthGrant, MailPermissions, Minted, sawSuperseded: Bool)
        case refused(OAuthError)
    }

    // MARK: - Minting

    /// A signed access token and what its response hands out.
    struct Minted: Sendable {
        let accessToken: String
        let expiresIn: Int64
        let issue: OAuthIssue
    }

    /// Signs an access token of `grant` narrowed to `permissions` (``OAuthAccessClaims``, `typ: at+jwt`, EdDSA) and
    /// draws the next refresh token. Call it on the worker pool's signing lane.
    func mint(_ grant: OAuthGrant, permissions: MailPermissions, now: Int64) throws -> Minted {
        let ttl = min(configuration.accessTokenLifetime, grant.expiresAt - now)
        let jti = SecureRandom.identifier(byteCount: 16)
        let claims = OAuthAccessClaims(
            ownerID: grant.ownerID, clientID: grant.clientID, resource: grant.resource, permissions: permissions,
            jti: jti)
        let token = try keys.sign(
            claims.claims(issuer: configuration.issuer, issuedAt: now, ttl: ttl), for: OAuthAccessClaims.purpose)
        let issue = OAuthIssue(
            refreshToken: OAuthDigest.newToken(),
            refreshExpiresAt: min(now + configuration.refreshTokenLifetime, grant.expiresAt), jti: jti,
            accessExpiresAt: now + ttl)
        return Minted(accessToken: token, expiresIn: ttl, issue: issue)
    }

    /// The token response; without `refresh_token` for a client that did not register that grant type (the one
    /// stored for it is never shown, so never usable).
    func tokenResponse(_ minted: Minted, permissions: MailPermissions, withRefreshToken: Bool = true) -> HTTPResponse {
        var members: [(String, JSONValue)] = [
            ("access_token", .string(minted.accessToken)), ("token_type", .string("Bearer")),
            ("expires_in", .int(minted.expiresIn)),
        ]
        if withRefreshToken { members.append(("refresh_token", .string(minted.issue.refreshToken))) }
        members.append(("scope", .string(permissions.scope)))
        return OAuthJSON.response(.ok, .object(members))
    }
}
