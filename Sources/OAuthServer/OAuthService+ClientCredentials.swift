import Audit
import AuthCrypto
import HTTP1
import JSON
import OAuthGrants

extension OAuthService {
    /// `grant_type=client_credentials` (RFC 6749 section 4.4; MCP's `io.modelcontextprotocol/oauth-client-credentials`)
    /// for an authenticated confidential client: an access token of the client's own (`sub` and `client_id` the
    /// client), for `resource` (required, one of this server's exactly as the code flow takes it; an inbox resource
    /// only of an inbox the client is bound to), with `scope` the client's or a narrower one. No refresh token (RFC
    /// 6749 section 4.4.3): the client asks again. The grant is written before the token is handed out, so that
    /// revocation and introspection know it at once, and one audit line records it.
    /// - Parameter address: the client's address, for the audit line.
    func clientCredentials(_ fields: [String: String], _ client: OAuthConfidentialClient, from address: String?)
        async throws -> HTTPResponse
    {
        let permissions = try Self.requestedPermissions(fields["scope"]) ?? client.permissions
        guard client.permissions.isSuperset(of: permissions) else {
            throw OAuthError.invalidScope("scope is wider than the client's (\(client.permissions.scope)).")
        }
        guard let resource = fields["resource"], !resource.isEmpty else {
            throw OAuthError.invalidRequest("resource is required (RFC 8707): <issuer>/mcp, <issuer>/jmap or an inbox.")
        }
        guard let target = OAuthResource(resource, configuration: configuration) else {
            throw OAuthError.invalidTarget("resource must be exactly one of this server's resources.")
        }
        if case .inbox(let accountID) = target, !client.inboxIDs.contains(accountID.lowercased()) {
            throw OAuthError.invalidTarget("The client is not bound to that inbox.")
        }
        guard !client.inboxIDs.isEmpty else {
            throw OAuthError.unauthorizedClient("The client is bound to no live inbox; it may only introspect.")
        }
        let now = clock()
        let ttl = configuration.accessTokenLifetime
        let jti = SecureRandom.identifier(byteCount: 16)
        let claims = OAuthAccessClaims(
            ownerID: client.clientID, clientID: client.clientID, resource: resource, permissions: permissions, jti: jti)
        let (keys, issuer) = (keys, configuration.issuer)
        let token = try await pool.run(.signing) {
            try keys.sign(claims.claims(issuer: issuer, issuedAt: now, ttl: ttl), for: OAuthAccessClaims.purpose)
        }
        try await grants.issueClientGrant(
            jti: jti, clientID: client.clientID, permissions: permissions, resource: resource, now: now,
            expiresAt: now + ttl)
        metrics.clientCredentials.increment()
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .app, actorID: client.clientID, ownerID: client.ownerID,
                action: .clientCredentialsGranted, target: jti, clientAddress: address,
                details: AuditDetails.json(["scope": permissions.scope, "resource": resource]))
        }
        return OAuthJSON.response(
            .ok,
            .object([
                ("access_token", .string(token)), ("token_type", .string("Bearer")), ("expires_in", .int(ttl)),
                ("scope", .string(permissions.scope)),
            ]))
    }
}
