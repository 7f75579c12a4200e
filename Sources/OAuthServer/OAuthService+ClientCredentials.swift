import Audit
import AuthCrypto
import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants
import Storage

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
        let issue = try clientCredentialsIssue(fields, client, now: clock())
        let (keys, issuer) = (keys, configuration.issuer)
        let token = try await pool.run(.signing) { try issue.sign(keys, issuer: issuer) }
        let line = clientCredentialsLine(issue, client, from: address)
        try await grants.issueClientGrant(
            jti: issue.jti, clientID: client.clientID, permissions: issue.permissions, resource: issue.resource,
            now: issue.now, expiresAt: issue.expiresAt, alongside: line.row)
        metrics.clientCredentials.increment()
        if line.row == nil { await audit.record(line.event) }
        return issue.response(token)
    }

    /// A client credentials grant answered from the event loop that read it (short work on SQLite, issue 86): the
    /// client read on the loop thread's own connection and its secret checked, the token signed there (Ed25519, tens
    /// of microseconds), and the grant with its audit line queued as one write to the writer's group commit, whose
    /// commit answers. False, having done nothing, for any other request (another grant type, a client that is not a
    /// confidential one authenticating with a secret), which then goes ``token(_:from:)``'s way.
    /// - Parameters:
    ///   - answer: called once with the answer, from the writer's queue, when this returned true.
    ///   - failure: the answer to a failed write.
    /// - Throws: what the checks throw (`invalid_client`, `invalid_scope`, `invalid_target`, ...), before any write.
    func clientCredentialsNow(
        _ request: HTTPRequest, fields: [String: String], from address: String?,
        answer: @escaping @Sendable (HTTPResponse) -> Void, failure: @escaping @Sendable (any Error) -> HTTPResponse
    ) throws -> Bool {
        guard configuration.clientCredentials, grants.queuesWritesFromCallingThread,
            fields["grant_type"] == "client_credentials", let client = try confidentialClientNow(request, fields: fields)
        else { return false }
        let issue = try clientCredentialsIssue(fields, client, now: clock())
        let token = try issue.sign(keys, issuer: configuration.issuer)
        let line = clientCredentialsLine(issue, client, from: address)
        grants.issueClientGrantQueued(
            jti: issue.jti, clientID: client.clientID, permissions: issue.permissions, resource: issue.resource,
            now: issue.now, expiresAt: issue.expiresAt, alongside: line.row
        ) { [self] error in
            if let error { return answer(failure(error)) }
            metrics.clientCredentials.increment()
            if line.row == nil { Task { await audit.record(line.event) } }
            answer(issue.response(token))
        }
        return true
    }

    /// What a client credentials grant issues once checked.
    struct ClientCredentialsIssue: Sendable {
        let claims: OAuthAccessClaims
        let permissions: MailPermissions
        let resource: String
        let jti: String
        let now: Int64
        let ttl: Int64

        var expiresAt: Int64 { now + ttl }

        /// The access token, signed with the active EdDSA key.
        func sign(_ keys: JWTKeySet, issuer: String) throws -> String {
            try keys.sign(claims.claims(issuer: issuer, issuedAt: now, ttl: ttl), for: OAuthAccessClaims.purpose)
        }

        /// The token response (no refresh token, RFC 6749 section 4.4.3).
        func response(_ token: String) -> HTTPResponse {
            OAuthJSON.response(
                .ok,
                .object([
                    ("access_token", .string(token)), ("token_type", .string("Bearer")), ("expires_in", .int(ttl)),
                    ("scope", .string(permissions.scope)),
                ]))
        }
    }

    /// The checks of a client credentials request of `client` (the scope within the client's, a resource of this
    /// server's and, for an inbox, one the client is bound to), and what it issues.
    func clientCredentialsIssue(_ fields: [String: String], _ client: OAuthConfidentialClient, now: Int64) throws
        -> ClientCredentialsIssue
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
        let jti = SecureRandom.identifier(byteCount: 16)
        return ClientCredentialsIssue(
            claims: OAuthAccessClaims(
                ownerID: client.clientID, clientID: client.clientID, resource: resource, permissions: permissions,
                jti: jti),
            permissions: permissions, resource: resource, jti: jti, now: now, ttl: configuration.accessTokenLifetime)
    }

    /// The grant's audit line (`app.client_credentials`): as an event, and, where the trail is in the grant's database
    /// (``auditsInGrantWrites``), as its row (at the trail's time now) for the grant's own write; nil where it is not.
    private func clientCredentialsLine(
        _ issue: ClientCredentialsIssue, _ client: OAuthConfidentialClient, from address: String?
    ) -> (event: @Sendable (Int64) -> AuditEvent, row: SQLInsert?) {
        let (clientID, ownerID, clock) = (client.clientID, client.ownerID, audit.clock)
        let details = AuditDetails.json(["scope": issue.permissions.scope, "resource": issue.resource])
        let event = { @Sendable (time: Int64) in
            AuditEvent(
                time: time, actorKind: .app, actorID: clientID, ownerID: ownerID, action: .clientCredentialsGranted,
                target: issue.jti, clientAddress: address, details: details)
        }
        return (event, auditsInGrantWrites ? SQLAuditLog.row(event(clock())) : nil)
    }
}
