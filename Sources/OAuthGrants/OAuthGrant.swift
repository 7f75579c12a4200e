import Directory

/// What an owner approved for a client (`oauth_grants`): permissions, the resource (the tokens' audience), the
/// default inbox, and the absolute end of its refresh chain.
public struct OAuthGrant: Sendable, Equatable {
    /// Lowercase UUID.
    public let id: String
    /// The owner's id: the access tokens' `sub`.
    public let ownerID: String
    /// The client it was granted to.
    public let clientID: String
    /// The default inbox chosen at consent (the agent account id), if any.
    public let agentID: String?
    /// The approved permissions (the scopes `mail.read`, `mail.send`).
    public let permissions: MailPermissions
    /// The resource, exactly as requested: the access tokens' `aud`.
    public let resource: String
    /// When the owner approved, Unix seconds.
    public let createdAt: Int64
    /// No token of the grant lives past this, Unix seconds.
    public let expiresAt: Int64
    /// The one inbox the grant reaches when the owner chose "only this inbox" (or the resource names an inbox); nil
    /// when it reaches every inbox the owner holds, including ones added later.
    public let boundAccountID: String?

    /// The approved scopes, in the order they are written (`mail.read`, `mail.send`).
    public var scopes: [String] { permissions.names }
}
