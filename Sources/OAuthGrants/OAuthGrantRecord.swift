import Directory
import Storage

/// One access token's grant as the database holds it: read by `jti` from `oauth_access_tokens` joined to
/// `oauth_grants` (``OAuthGrantStore/record(jti:)``), what a resource server checks a token's claims against.
public struct OAuthGrantRecord: Sendable, Equatable {
    /// The grant's id.
    public let grantID: String
    /// The owner who approved it.
    public let ownerID: String
    /// The client it was approved for.
    public let clientID: String
    /// The grant's default inbox, when it still exists.
    public let agentID: String?
    /// The one inbox the grant reaches (migration 0026); nil for every inbox the owner holds.
    public let boundAccountID: String?
    /// The approved permissions; nil when the stored scope names anything else.
    public let permissions: MailPermissions?
    /// The resource the grant was approved for (its tokens' `aud`).
    public let resource: String
    /// End of the grant's rotation chain, Unix seconds.
    public let grantExpiresAt: Int64
    /// When the token itself expires (its row), Unix seconds.
    public let tokenExpiresAt: Int64
    /// Whether the grant was revoked.
    public let revoked: Bool
    /// For a client's own grant (client credentials, `sub` the client): the inboxes the client was bound to; nil for
    /// an owner's grant, whose inboxes are the owner's.
    public let clientInboxIDs: [String]?
    /// For a client's own grant whose client an owner made: that owner (who must still hold each bound inbox).
    public let clientOwnerID: String?
    /// For a delegated token (token exchange, RFC 8693): the actors its `act` claim must name; nil for any other.
    public let act: OAuthActorChain?
    /// For a token minted for an agent client acting for the owner: the inboxes its actors were bound to (account
    /// ids, lowercase), of which it reaches those the owner holds; nil for any other token.
    public let actorInboxIDs: [String]?

    /// A record as read, or as a test builds one.
    public init(
        grantID: String, ownerID: String, clientID: String, agentID: String?, boundAccountID: String?,
        permissions: MailPermissions?, resource: String, grantExpiresAt: Int64, tokenExpiresAt: Int64, revoked: Bool,
        clientInboxIDs: [String]? = nil, clientOwnerID: String? = nil, act: OAuthActorChain? = nil,
        actorInboxIDs: [String]? = nil
    ) {
        self.grantID = grantID
        self.ownerID = ownerID
        self.clientID = clientID
        self.agentID = agentID
        self.boundAccountID = boundAccountID
        self.permissions = permissions
        self.resource = resource
        self.grantExpiresAt = grantExpiresAt
        self.tokenExpiresAt = tokenExpiresAt
        self.revoked = revoked
        self.clientInboxIDs = clientInboxIDs
        self.clientOwnerID = clientOwnerID
        self.act = act
        self.actorInboxIDs = actorInboxIDs
    }

    /// Whether the grant still opens anything at `now`.
    public func isLive(at now: Int64) -> Bool {
        !revoked && grantExpiresAt > now && tokenExpiresAt > now
    }

    /// Whether `claims` are what the authorization server minted for this grant: same owner, client, resource and
    /// actors (`act`, none on a token that was not exchanged), and no permission beyond the grant's.
    public func matches(_ claims: OAuthAccessClaims) -> Bool {
        guard let permissions else { return false }
        return ownerID == claims.ownerID && clientID == claims.clientID && resource == claims.resource
            && permissions.isSuperset(of: claims.permissions) && act == claims.act
    }
}

extension OAuthGrantRecord {
    init?(row: SQLRow) {
        guard let id = row.text("id"), let owner = row.text("owner_id"), let client = row.text("client_id"),
            let scope = row.text("scope"), let resource = row.text("resource"), let expires = row.int("expires_at"),
            let tokenExpires = row.int("token_expires_at")
        else { return nil }
        self.init(
            grantID: id, ownerID: owner, clientID: client, agentID: row.text("agent_id"),
            boundAccountID: row.text("bound_account_id"), permissions: MailPermissions(scope: scope),
            resource: resource, grantExpiresAt: expires, tokenExpiresAt: tokenExpires,
            revoked: row.int("revoked_at") != nil)
    }
}
