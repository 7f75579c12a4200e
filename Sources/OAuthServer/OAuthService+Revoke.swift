import Audit
import AuthCrypto
import HTTP1
import JSON
import JWT
import OAuthGrants

extension OAuthService {
    /// `POST /oauth/revoke` (RFC 7009; contract 1.5): a refresh token or an access token of the calling client
    /// revokes its whole grant; an unknown token, or another client's, is 200 and changes nothing.
    /// A confidential client's own client credentials token revokes its grant likewise; a token it holds from token
    /// exchange or the JWT bearer grant is revoked with the tokens exchanged from it (the owner's grant stays).
    func revoke(_ request: HTTPRequest) async throws -> HTTPResponse {
        let endpoint = configuration.issuer + "/oauth/revoke"
        let (fields, authenticated) = try await authenticatedForm(request, endpoint: endpoint)
        guard let token = fields["token"], !token.isEmpty else { throw OAuthError.invalidRequest("token is required.") }
        let now = clock()
        let client: OAuthClient
        switch authenticated {
        case .registered(let registered): client = registered
        case .confidential(let confidential):
            if let jti = accessTokenID(token, now: now) {
                var revoked = try await grants.revokeClientGrant(jti: jti, clientID: confidential.clientID, now: now)
                if !revoked {
                    revoked = try await grants.revokeDelegatedToken(jti: jti, clientID: confidential.clientID, now: now)
                }
                if revoked { metrics.revocations.increment() }
            }
            return OAuthJSON.response(.ok, .object([]))
        }
        let owner: (grantID: String, clientID: String)?
        if let jti = accessTokenID(token, now: now) {
            owner = try await grants.grantOf(jti: jti)
        } else {
            owner = try await grants.grantOf(refreshToken: token)
        }
        if let owner, owner.clientID == client.clientID, try await grants.revoke(grantID: owner.grantID, now: now) {
            metrics.revocations.increment()
            if let revoked = try? await grants.grant(id: owner.grantID) {
                await audit.record {
                    AuditEvent(
                        time: $0, actorKind: .app, actorID: client.clientID, ownerID: revoked.grant.ownerID,
                        action: .appRevoked, target: owner.grantID)
                }
            }
        }
        return OAuthJSON.response(.ok, .object([]))
    }

    /// The `jti` of `token` when it is an access token this server signed and that has not expired; nil otherwise.
    /// Any of this server's audiences will do; the signature, issuer, purpose and lifetime are checked as everywhere.
    func accessTokenID(_ token: String, now: Int64) -> String? {
        guard
            let claims = try? OAuthAccessClaims.verify(
                token, keys: keys, issuer: configuration.issuer, lifetime: configuration.accessTokenLifetime, now: now),
            configuration.serviceResources.contains(claims.resource)
                || claims.resource.hasPrefix(OAuthResource.inboxPrefix)
        else { return nil }
        return claims.jti
    }
}
