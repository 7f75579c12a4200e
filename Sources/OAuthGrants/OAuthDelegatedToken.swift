import Directory

/// An access token minted for an actor (migration 0072, `oauth_delegated_tokens`): by token exchange (RFC 8693, with
/// `act`) or by the JWT bearer grant of an identity assertion (RFC 7523, without). It lives no longer than
/// ``expiresAt`` and dies with ``grantID``: the owner's grant its subject token descended from, or the token an
/// identity assertion minted first.
public struct OAuthDelegatedToken: Sendable, Equatable {
    /// The token's `jti`.
    public let jti: String
    /// What it dies with: an `oauth_grants` id, or the `jti` of the assertion-rooted token (its own, for that one).
    public let grantID: String
    /// The `jti` of the token it was exchanged from, when that was an access token (revoking a delegated token takes
    /// the tokens exchanged from it along); nil for an identity assertion's.
    public let parentJTI: String?
    /// The owner it acts for (`sub`).
    public let ownerID: String
    /// The client holding it (`client_id`): the current actor.
    public let clientID: String
    /// The actors (`act`); nil for a JWT bearer grant's token.
    public let act: OAuthActorChain?
    /// What it may do.
    public let permissions: MailPermissions
    /// Its audience.
    public let resource: String
    /// The default inbox of the grant it descends from.
    public let agentID: String?
    /// The one inbox the grant it descends from reaches; nil for every inbox the owner holds.
    public let boundAccountID: String?
    /// The inboxes (account ids, lowercase) it reaches at most: its actors' bound inboxes, narrowed at each exchange
    /// (migration 0078); it reaches those of them the owner holds. Nil only for a token written before 0078.
    public let inboxIDs: [String]?
    /// When it expires, Unix seconds.
    public let expiresAt: Int64

    /// A token to write before it is handed out.
    public init(
        jti: String, grantID: String, parentJTI: String?, ownerID: String, clientID: String, act: OAuthActorChain?,
        permissions: MailPermissions, resource: String, agentID: String?, boundAccountID: String?,
        inboxIDs: [String]?, expiresAt: Int64
    ) {
        self.jti = jti
        self.grantID = grantID
        self.parentJTI = parentJTI
        self.ownerID = ownerID
        self.clientID = clientID
        self.act = act
        self.permissions = permissions
        self.resource = resource
        self.agentID = agentID
        self.boundAccountID = boundAccountID
        self.inboxIDs = inboxIDs
        self.expiresAt = expiresAt
    }
}

/// An agent client an owner lets act for them, as `/owner/actors` lists it.
public struct OAuthOwnerActor: Sendable, Equatable {
    /// The client's id.
    public let clientID: String
    /// The name it was made with.
    public let name: String
    /// Whether the owner made it (else the operator did).
    public let ownClient: Bool
    /// When the owner allowed it, Unix seconds.
    public let allowedAt: Int64
}
