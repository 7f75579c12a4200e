import Directory

/// An app an owner connected (a live grant with its client's name), as the owner pages list it
/// (``OAuthGrantStore/connectedApps(ownerID:now:)``).
public struct OAuthConnectedApp: Sendable, Equatable {
    /// The grant's id (lowercase UUID).
    public let id: String
    /// The client's `client_id`.
    public let clientID: String
    /// The client's registered `client_name`, when it gave one.
    public let clientName: String?
    /// The approved permissions.
    public let permissions: MailPermissions
    /// The resource (token audience) the grant is for.
    public let resource: String
    /// The inbox the connection defaults to (an agent account id), nil when none or it is gone.
    public let defaultAccountID: String?
    /// When the owner approved it, Unix seconds.
    public let grantedAt: Int64
    /// The one inbox the app can reach (bound at consent, or named by an inbox resource), lowercase; nil when it
    /// can reach every inbox the owner holds, including ones added later.
    public let boundAccountID: String?

    /// An app as listed.
    public init(
        id: String, clientID: String, clientName: String?, permissions: MailPermissions, resource: String,
        defaultAccountID: String?, grantedAt: Int64, boundAccountID: String? = nil
    ) {
        self.id = id
        self.clientID = clientID
        self.clientName = clientName
        self.permissions = permissions
        self.resource = resource
        self.defaultAccountID = defaultAccountID
        self.grantedAt = grantedAt
        self.boundAccountID = boundAccountID
    }

    /// The approved scopes, in the order they are written (`mail.read`, `mail.send`).
    public var scopes: [String] { permissions.names }
}
