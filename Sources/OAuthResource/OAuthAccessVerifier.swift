import AuthCrypto
import Directory
import JSON
import JWT
import Metrics
import Storage

/// Verifies an owner's RFC 9068 access token for the resources a route serves (`api-docs/oauth-mcp-contract.md`
/// 1.8, 1.10-1.12): the EdDSA `at+jwt` of this issuer (the algorithm bound to the key, `pur` `oauth-access`, at most
/// 900 s), an audience among those asked for, a scope among `mail.read mail.send`; then its grant, found by `jti`,
/// must be live (not revoked, not past its chain's end) and agree with the claims. Live grants are kept in an
/// ``OAuthGrantCache`` that revocations invalidate.
public struct OAuthAccessVerifier: AccessGrantAuthenticator {
    let configuration: OAuthResourceConfiguration
    let keys: JWTKeySet
    let database: any SQLDatabase
    let cache: OAuthGrantCache?
    let clock: @Sendable () -> Int64
    let metrics: OAuthResourceMetrics

    /// - Parameters:
    ///   - configuration: the issuer and resources.
    ///   - keys: the key set holding the EdDSA key(s) the authorization server signs with.
    ///   - database: where `oauth_access_tokens` and `oauth_grants` are.
    ///   - cache: the instance's cache of live grants (one per database; nil when `cacheGrants` is off).
    ///   - clock: Unix seconds.
    ///   - metricsFactory: where `postern_oauth_token_verifications_total` goes (default: the bootstrapped system).
    public init(
        configuration: OAuthResourceConfiguration, keys: JWTKeySet, database: any SQLDatabase, cache: OAuthGrantCache?,
        clock: @escaping @Sendable () -> Int64, metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.keys = keys
        self.database = database
        self.cache = configuration.cacheGrants ? cache : nil
        self.clock = clock
        self.metrics = OAuthResourceMetrics(factory: metricsFactory)
    }

    public func grant(for token: String, resources: Set<AccessGrant.Resource>) async throws -> AccessGrant {
        let now = clock()
        var policy = JWTPolicy(
            purpose: .oauthAccess, issuer: configuration.issuer,
            maximumLifetime: OAuthResourceConfiguration.accessTokenLifetime)
        if resources.contains(.jmap) { policy.otherAudiences.insert(configuration.jmapResource) }
        if resources.contains(.mcp) { policy.otherAudiences.insert(configuration.mcpResource) }
        if resources.contains(where: { if case .agent = $0 { true } else { false } }) {
            policy.audiencePrefixes = [OAuthResourceConfiguration.agentResourcePrefix]
        }
        policy.anyScope = true
        let claims: JWTClaims
        do {
            claims = try keys.verify(token, policy: policy, now: now)
        } catch {
            throw refuse(Self.result(of: error), "The access token is invalid, expired, or not for this resource.")
        }
        guard let owner = claims.sub, let jti = claims.jti, let client = claims["client_id"]?.stringValue,
            let audience = claims["aud"]?.stringValue, let resource = resource(of: audience),
            let permissions = claims["scope"]?.stringValue.flatMap(MailPermissions.init(scope:))
        else { throw refuse(.invalid, "The access token lacks sub, client_id or a known scope.") }

        let record: OAuthGrantRecord
        if let kept = cache?.record(jti: jti, now: now) {
            record = kept
        } else {
            let generation = cache?.generation()
            guard let found = try await OAuthGrantRecord.find(jti: jti, in: database) else {
                throw refuse(.unknownGrant, "The access token was not issued here; authorize again.")
            }
            guard found.isLive(at: now) else {
                throw refuse(.revoked, "The grant behind the access token was revoked or has ended; authorize again.")
            }
            if let cache, let generation { cache.store(found, jti: jti, since: generation, now: now) }
            record = found
        }
        // The row is the authorization server's word: a token whose claims disagree with it is not one it minted.
        guard record.ownerID == owner, record.clientID == client, record.resource == audience,
            let granted = MailPermissions(scope: record.scope), granted.isSuperset(of: permissions)
        else { throw refuse(.unknownGrant, "The access token does not match its grant; authorize again.") }
        metrics.count(.valid)
        return AccessGrant(
            ownerID: owner, grantID: record.grantID, clientID: client, resource: resource, permissions: permissions,
            defaultInboxID: record.agentID, inboxOnly: record.boundAccountID)
    }

    /// The resource `audience` names; nil for none of this server's.
    private func resource(of audience: String) -> AccessGrant.Resource? {
        if audience == configuration.jmapResource { return .jmap }
        if audience == configuration.mcpResource { return .mcp }
        let prefix = OAuthResourceConfiguration.agentResourcePrefix
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

    /// Whether `token` presents itself as an OAuth access token (its header's `typ` is `at+jwt`): how a route that
    /// also takes capability tokens picks the verifier. Only a routing hint: the verifier checks everything again.
    public static func looksLikeAccessToken(_ token: String) -> Bool {
        guard token.utf8.count <= JWTKeySet.maximumTokenLength,
            let header = token.split(separator: ".", omittingEmptySubsequences: false).first, header.utf8.count <= 1024,
            let decoded = Base64URL.decode(String(header)),
            let typ = (try? JSONValue.parse(decoded, limits: .init(maximumDepth: 4)))?["typ"]?.stringValue
        else { return false }
        let lowered = typ.lowercased()
        return lowered == "at+jwt" || lowered == "application/at+jwt"
    }
}
