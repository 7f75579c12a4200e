import ClientAddress
/// What a verified OAuth access token opens (issue 28): the owner who approved it, the live grant behind it, the
/// resource it was minted for and what it may do. Inboxes are the owner's (``OwnedInboxes``), chosen per request; a
/// client's own token (client credentials, issue 86) reaches the inboxes its client was bound to instead.
public struct AccessGrant: Sendable, Equatable {
    /// The resource (the token's `aud`) a grant was approved for.
    public enum Resource: Sendable, Equatable, Hashable {
        /// `<public URL>/jmap`.
        case jmap
        /// `<public URL>/mcp`.
        case mcp
        /// `urn:atomicmail:agent:{accountId}`: that one inbox, over JMAP.
        case agent(accountID: String)
    }

    /// The owner (`sub`).
    public let ownerID: String
    /// The grant (found from the token's `jti`).
    public let grantID: String
    /// The client the owner approved (`client_id`).
    public let clientID: String
    /// The token's audience.
    public let resource: Resource
    /// The token's scopes.
    public let permissions: MailPermissions
    /// The inbox picked at consent (the grant's default), when it still exists.
    public let defaultInboxID: String?
    /// The inbox the owner bound the grant to at consent ("only this inbox"); nil for a grant that reaches every
    /// inbox the owner holds.
    public let inboxOnly: String?
    /// For a client's own token (client credentials: ``ownerID`` is then the client): the inboxes the operator bound
    /// the client to, which are all it reaches; nil for an owner's grant, which reaches the owner's inboxes.
    public let clientInboxIDs: [String]?
    /// For a client's own token whose client an owner made (an agent's own client, on `/owner`): that owner, who must
    /// still hold each bound inbox for the token to reach it; nil for the operator's clients and owners' grants.
    public let clientOwnerID: String?
    /// For a delegated token (token exchange): who acts for ``ownerID``; nil for every other token.
    public let delegation: Delegation?
    /// For a token minted for an agent client acting for the owner (token exchange, the JWT bearer grant): the
    /// inboxes its actors were bound to (account ids, lowercase); it reaches only the owner's inboxes among them. Nil
    /// for every other token.
    public let actorInboxIDs: [String]?
    /// The token's own id (`jti`), when the verifier knows it: what an audit line names the token by.
    public let tokenID: String?

    /// - Parameters:
    ///   - inboxOnly: the inbox the grant is bound to, whatever the token's audience; nil for every inbox held.
    ///   - clientInboxIDs: a client's own grant: the inboxes it is bound to; nil for an owner's grant.
    ///   - clientOwnerID: a client's own grant whose client an owner made: that owner.
    ///   - delegation: a delegated token's actors, as its verified `act` and its grant row both name them.
    ///   - actorInboxIDs: a token minted for an acting client: the inboxes it is narrowed to.
    ///   - tokenID: the token's `jti`.
    public init(
        ownerID: String, grantID: String, clientID: String, resource: Resource, permissions: MailPermissions,
        defaultInboxID: String?, inboxOnly: String? = nil, clientInboxIDs: [String]? = nil,
        clientOwnerID: String? = nil, delegation: Delegation? = nil, actorInboxIDs: [String]? = nil,
        tokenID: String? = nil
    ) {
        self.ownerID = ownerID
        self.grantID = grantID
        self.clientID = clientID
        self.resource = resource
        self.permissions = permissions
        self.defaultInboxID = defaultInboxID
        self.inboxOnly = inboxOnly
        self.clientInboxIDs = clientInboxIDs
        self.clientOwnerID = clientOwnerID
        self.delegation = delegation
        self.actorInboxIDs = actorInboxIDs
        self.tokenID = tokenID
    }

    /// Whether a token minted for acting clients may reach inbox `accountID` (lowercase): always for any other token.
    public func actorsReach(_ accountID: String) -> Bool {
        actorInboxIDs?.contains(accountID) ?? true
    }

    /// The one inbox this token reaches, lowercase: the one an inbox audience (`urn:atomicmail:agent:{id}`) names,
    /// else the one the grant was bound to at consent; nil when it reaches every inbox the owner holds.
    public var boundInboxID: String? {
        if case .agent(let accountID) = resource { return accountID.lowercased() }
        return inboxOnly?.lowercased()
    }
}

/// Verifies an owner's OAuth access token for the resources a surface serves: implemented by the resource side
/// (`OAuthResource`), used by JMAP, MCP and `/api/v1/agents`.
public protocol AccessGrantAuthenticator: Sendable {
    /// The live grant `token` opens, when its audience is one of `resources`
    /// (``AccessGrant/Resource/agent(accountID:)`` with any id stands for every inbox-bound audience).
    /// - Throws: ``AuthenticationRefusal`` `.invalidToken` for a token that does not verify, is expired, of another
    ///   issuer or audience, or whose grant is revoked, expired or unknown; storage errors.
    func grant(for token: String, resources: Set<AccessGrant.Resource>) async throws -> AccessGrant

    /// ``grant(for:resources:)`` for a request from `client` (the request context's address, trusted proxies
    /// honoured; nil when the peer is not an address), for an authenticator that records what a token did and from
    /// where (the composition root's `agent.read` line). The default ignores the client.
    /// - Throws: as ``grant(for:resources:)``.
    func grant(for token: String, resources: Set<AccessGrant.Resource>, client: IPAddress?) async throws
        -> AccessGrant

    /// What can be known of `token` without its grant: the permissions it claims when its signature, issuer,
    /// lifetime and an audience among `resources` hold; nil when this authenticator cannot tell without the grant.
    /// A token refused here is refused whoever holds it and whenever it is tried again, so a door may say so at once.
    /// - Throws: ``AuthenticationRefusal`` `.invalidToken`.
    func statelessCheck(_ token: String, resources: Set<AccessGrant.Resource>) throws -> MailPermissions?
}

extension AccessGrantAuthenticator {
    /// The grant, wherever the request came from.
    public func grant(for token: String, resources: Set<AccessGrant.Resource>, client: IPAddress?) async throws
        -> AccessGrant
    {
        try await grant(for: token, resources: resources)
    }

    /// Nothing is known without the grant.
    public func statelessCheck(_ token: String, resources: Set<AccessGrant.Resource>) throws -> MailPermissions? {
        nil
    }
}

extension AccessGrant.Resource {
    /// Stands for every `urn:atomicmail:agent:{id}` audience in an accepted set.
    public static let anyAgent = AccessGrant.Resource.agent(accountID: "")
}
