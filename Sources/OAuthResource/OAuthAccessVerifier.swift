import Directory
import JWT
import Metrics
import OAuthGrants

/// Verifies an owner's RFC 9068 access token for the resources a route serves (`api-docs/oauth-mcp-contract.md`
/// 1.8, 1.10-1.12): ``OAuthAccessClaims`` of this issuer (the EdDSA `at+jwt`, the algorithm bound to the key, `pur`
/// `oauth-access`, at most 900 s), an audience among those asked for, permissions among `mail.read mail.send`; then
/// its grant, found by `jti` in the grant store, must be live (not revoked, not past its chain's end) and agree with
/// the claims. The signature and the grant are checked by the ``OAuthTokenVerifier`` introspection uses too: verified
/// bytes are not verified again, and live grants are kept in an ``OAuthGrantCache`` that revocations invalidate.
public struct OAuthAccessVerifier: AccessGrantAuthenticator {
    let configuration: OAuthResourceConfiguration
    let tokens: OAuthTokenVerifier
    let clock: @Sendable () -> Int64
    let metrics: OAuthResourceMetrics

    /// A verifier on the composition root's one ``OAuthTokenVerifier``.
    /// - Parameters:
    ///   - configuration: the issuer and resources (its issuer must be the one `tokens` checks).
    ///   - tokens: the signature and grant check shared with introspection.
    ///   - clock: Unix seconds.
    ///   - metricsFactory: where `postern_oauth_token_verifications_total` goes (default: the bootstrapped system).
    public init(
        configuration: OAuthResourceConfiguration, tokens: OAuthTokenVerifier,
        clock: @escaping @Sendable () -> Int64, metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.tokens = tokens
        self.clock = clock
        self.metrics = OAuthResourceMetrics(factory: metricsFactory)
    }

    /// A verifier with a token check of its own (tests, tools).
    /// - Parameters:
    ///   - configuration: the issuer and resources.
    ///   - keys: the key set holding the EdDSA key(s) the authorization server signs with.
    ///   - grants: where a token's grant is found by its `jti`.
    ///   - cache: the instance's cache of live grants (nil, or unused when `cacheGrants` is off), which must observe
    ///     `grants`' revocations.
    ///   - clock: Unix seconds.
    ///   - metricsFactory: where `postern_oauth_token_verifications_total` goes (default: the bootstrapped system).
    public init(
        configuration: OAuthResourceConfiguration, keys: JWTKeySet, grants: OAuthGrantStore, cache: OAuthGrantCache?,
        clock: @escaping @Sendable () -> Int64, metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.init(
            configuration: configuration,
            tokens: OAuthTokenVerifier(
                keys: keys, issuer: configuration.issuer, lifetime: OAuthResourceConfiguration.accessTokenLifetime,
                grants: grants, cache: configuration.cacheGrants ? cache : nil),
            clock: clock, metricsFactory: metricsFactory)
    }

    public func grant(for token: String, resources: Set<AccessGrant.Resource>) async throws -> AccessGrant {
        let now = clock()
        let (claims, resource) = try verifiedClaims(token, resources: resources, now: now)
        guard let record = try await tokens.record(for: claims, now: now) else {
            throw refuse(.unknownGrant, "The access token was not issued here; authorize again.")
        }
        guard record.isLive(at: now) else {
            throw refuse(.revoked, "The grant behind the access token was revoked or has ended; authorize again.")
        }
        // The row is the authorization server's word: a token whose claims disagree with it is not one it minted.
        guard record.matches(claims) else {
            throw refuse(.unknownGrant, "The access token does not match its grant; authorize again.")
        }
        metrics.count(.valid)
        return AccessGrant(
            ownerID: claims.ownerID, grantID: record.grantID, clientID: claims.clientID, resource: resource,
            permissions: claims.permissions, defaultInboxID: record.agentID, inboxOnly: record.boundAccountID,
            clientInboxIDs: record.clientInboxIDs, clientOwnerID: record.clientOwnerID,
            delegation: record.act.flatMap { Delegation(ownerID: claims.ownerID, actorIDs: $0.clientIDs) },
            actorInboxIDs: record.actorInboxIDs, tokenID: claims.jti)
    }

    /// What can be known of `token` without the grant store: its signature, issuer, purpose and lifetime, and an
    /// audience among `resources`. A token refused here is refused whoever holds it and whenever it is tried again (a
    /// forgery, an expired token, a token for `/mcp` at a mail door), so a door may say so even while it slows the name
    /// the token was tried for; a token that passes still needs ``grant(for:resources:)``.
    /// - Returns: the permissions the token claims.
    /// - Throws: ``AuthenticationRefusal`` (`invalid_token`), counted in the verification metrics.
    public func statelessCheck(_ token: String, resources: Set<AccessGrant.Resource>) throws -> MailPermissions? {
        try verifiedClaims(token, resources: resources, now: clock()).claims.permissions
    }

    /// The claims of a token of this issuer, and the resource its audience names, one of `resources`.
    private func verifiedClaims(_ token: String, resources: Set<AccessGrant.Resource>, now: Int64) throws
        -> (claims: OAuthAccessClaims, resource: AccessGrant.Resource)
    {
        let claims: OAuthAccessClaims
        do {
            claims = try tokens.verify(token, now: now).claims
        } catch {
            throw refuse(Self.result(of: error), "The access token is invalid, expired, or not for this resource.")
        }
        guard let resource = resource(of: claims.resource), Self.accepts(resources, resource) else {
            throw refuse(.wrongAudience, "The access token is invalid, expired, or not for this resource.")
        }
        return (claims, resource)
    }

    /// Whether `resource` is among those a route asked for (``AccessGrant/Resource/anyAgent`` stands for every inbox).
    private static func accepts(_ resources: Set<AccessGrant.Resource>, _ resource: AccessGrant.Resource) -> Bool {
        if case .agent = resource { return resources.contains(where: { if case .agent = $0 { true } else { false } }) }
        return resources.contains(resource)
    }

    /// The resource `audience` names; nil for none of this server's.
    private func resource(of audience: String) -> AccessGrant.Resource? {
        if audience == configuration.jmapResource { return .jmap }
        if audience == configuration.mcpResource { return .mcp }
        let prefix = OAuthAccessClaims.inboxResourcePrefix
        guard audience.hasPrefix(prefix), audience.utf8.count > prefix.utf8.count else { return nil }
        return .agent(accountID: String(audience.dropFirst(prefix.count)))
    }

    private func refuse(_ result: OAuthVerificationResult, _ description: String) -> AuthenticationRefusal {
        metrics.count(result)
        return AuthenticationRefusal(.invalidToken, description)
    }

    private static func result(of error: JWTError) -> OAuthVerificationResult {
        switch error.code {
        case .expired: .expired
        case .wrongAudience: .wrongAudience
        case .wrongIssuer: .wrongIssuer
        default: .invalid
        }
    }
}
