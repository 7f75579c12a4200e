import Directory
import HTTP1
import JSON
import OAuthGrants

extension OAuthService {
    /// `POST /oauth/device_authorization` (RFC 8628 section 3.1): a registered client (public, or confidential with
    /// `client_secret_post`) that registered the device-code grant type asks for `scope` (optional: its registered
    /// scopes, or every scope) on `resource` (required, as the code flow takes it). The answer (section 3.2) carries
    /// the device code, the user code shown as `BCDF-GHJK`, the verification page with and without the code,
    /// `expires_in` and `interval`; `Cache-Control: no-store`.
    func deviceAuthorization(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (fields, authenticated) = try await authenticatedForm(
            request, endpoint: configuration.deviceAuthorizationEndpoint)
        let client = try Self.deviceClient(authenticated)
        let scopes: [String]
        if let scope = fields["scope"], !scope.isEmpty {
            guard let parsed = OAuthScope.parse(scope) else {
                throw OAuthError.invalidScope("scope may name only mail.read and mail.send.")
            }
            scopes = parsed
        } else {
            scopes = client.scopes ?? OAuthScope.supported
        }
        if let allowed = client.scopes, !scopes.allSatisfy(allowed.contains) {
            throw OAuthError.invalidScope("scope is wider than the client registered for.")
        }
        guard let resource = fields["resource"], !resource.isEmpty else {
            throw OAuthError.invalidRequest("resource is required (RFC 8707): <issuer>/mcp, <issuer>/jmap or an inbox.")
        }
        guard OAuthResource(resource, configuration: configuration) != nil,
            let permissions = MailPermissions(scope: scopes.joined(separator: " "))
        else { throw OAuthError.invalidTarget("resource must be exactly one of this server's resources.") }
        let (now, lifetime, interval) = (clock(), configuration.deviceCodeLifetime, configuration.devicePollInterval)
        let start = try await grants.startDevice(
            clientID: client.clientID, permissions: permissions, resource: resource, now: now, lifetime: lifetime,
            interval: interval)
        metrics.device(.started)
        let shown = OAuthUserCode.displayed(start.userCode)
        let page = configuration.deviceVerificationURI
        return OAuthJSON.response(
            .ok,
            .object([
                ("device_code", .string(start.deviceCode)), ("user_code", .string(shown)),
                ("verification_uri", .string(page)),
                ("verification_uri_complete", .string(OAuthURL.appending([("user_code", shown)], to: page))),
                ("expires_in", .int(lifetime)), ("interval", .int(interval)),
            ]))
    }

    /// `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 section 3.4): the poll's answer (section
    /// 3.5: `authorization_pending`, `slow_down` with the code's interval now 5 s longer, `access_denied`,
    /// `expired_token`), or, once the owner approved, the tokens of the grant they made (with a refresh token when
    /// the client registered that grant type), exactly once: a second redemption is `invalid_grant`.
    func redeemDeviceCode(_ fields: [String: String], _ client: OAuthClient) async throws -> HTTPResponse {
        _ = try Self.deviceClient(.registered(client))
        guard let deviceCode = fields["device_code"], !deviceCode.isEmpty else {
            throw OAuthError.invalidRequest("device_code is required.")
        }
        let now = clock()
        switch try await grants.pollDevice(deviceCode, clientID: client.clientID, now: now) {
        case .unknown:
            throw OAuthError.invalidGrant("The device code is unknown or was issued to another client.")
        case .refused(let poll):
            throw Self.deviceError(poll)
        case .approved(let grant):
            let minted = try await pool.run(.signing) { [self] in
                try mint(grant, permissions: grant.permissions, now: now)
            }
            guard try await grants.redeemDevice(deviceCode, grant: grant, issue: minted.issue, now: now) else {
                throw Self.deviceError(.redeemed)
            }
            metrics.device(.redeemed)
            return tokenResponse(minted, permissions: grant.permissions, withRefreshToken: client.refreshes)
        }
    }

    /// The registered client of `authenticated` when it may use the device flow.
    /// - Throws: ``OAuthError`` `unauthorized_client` for the operator's confidential clients and for a client that
    ///   did not register the device-code grant type.
    static func deviceClient(_ authenticated: OAuthAuthenticatedClient) throws(OAuthError) -> OAuthClient {
        guard case .registered(let client) = authenticated else {
            throw .unauthorizedClient("A confidential client takes tokens with client_credentials only.")
        }
        guard client.takesDeviceCodes else {
            throw .unauthorizedClient(
                "This client did not register the grant type \(OAuthClientRegistration.deviceCodeGrantType).")
        }
        return client
    }

    /// The token endpoint's answer to a poll that gets no tokens (RFC 8628 section 3.5).
    static func deviceError(_ poll: OAuthDeviceCodeState.Poll) -> OAuthError {
        switch poll {
        case .pending, .approved:
            OAuthError("authorization_pending", "The owner has not answered yet; poll again after the interval.")
        case .slowDown(let interval):
            OAuthError("slow_down", "Polled too soon; the interval of this device code is now \(interval) s.")
        case .denied: OAuthError("access_denied", "The owner denied the request.")
        case .expired: OAuthError("expired_token", "The device code has expired; start again.")
        case .redeemed: .invalidGrant("The device code was already used.")
        }
    }
}
