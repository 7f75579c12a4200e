import Directory

/// What an owner's sign-in to a relying party with mail access granted (`oidc_mail_grants`, migration 0079): the
/// sign-in asked for `mail.read`/`mail.send`, the operator let the relying party ask (``OIDCRelyingParty/mailAccess``)
/// and the owner consented. Its access tokens are for the mail resource (`aud` `<issuer>/jmap`, the IMAP and submission
/// doors' `XOAUTH2`/`OAUTHBEARER`) and open userinfo too; its refresh tokens rotate at each use. It dies with the
/// consent (revoked by the owner), a replayed code, or a reused refresh token.
public struct OIDCMailGrant: Sendable, Equatable {
    /// Lowercase UUID: what a revocation announces to the instances' caches of live grants.
    public let id: String
    /// The relying party.
    public let clientID: String
    /// The owner (the tokens' `sub`).
    public let ownerID: String
    /// The sign-in's scopes (`openid` first, the mail scopes among them): what userinfo answers for.
    public let scopes: [String]
    /// The mail permissions its access tokens carry.
    public let permissions: MailPermissions
    /// The access tokens' audience: the mail resource.
    public let resource: String
    /// No token of the grant lives past this, Unix seconds.
    public let expiresAt: Int64

    public init(
        id: String, clientID: String, ownerID: String, scopes: [String], permissions: MailPermissions,
        resource: String, expiresAt: Int64
    ) {
        self.id = id
        self.clientID = clientID
        self.ownerID = ownerID
        self.scopes = scopes
        self.permissions = permissions
        self.resource = resource
        self.expiresAt = expiresAt
    }
}
