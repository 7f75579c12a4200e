import Directory

/// Who opened an MCP connection: an inbox API key (exactly that inbox, every permission) or an owner's OAuth access
/// token for `<public URL>/mcp` (the owner's inboxes, chosen per call by `agent_id`, within the grant's scopes).
enum MCPConnection: Sendable {
    /// The inbox an API key opens.
    case inbox(Principal)
    /// An owner's live grant.
    case owner(AccessGrant)
}

/// What the OAuth half of MCP needs (issue 29): the access-token verifier and the owners' inboxes as principals.
public struct MCPOwnerAccess: Sendable {
    let verifier: any AccessGrantAuthenticator
    let principals: OwnerPrincipals
    /// The authorization server's issuer, listed in the protected-resource metadata.
    let issuer: String

    /// - Parameters:
    ///   - verifier: verifies access tokens (audience `<public URL>/mcp`) and finds their live grants.
    ///   - principals: the owners' inboxes as principals, ownership read on every call.
    ///   - issuer: the authorization server's issuer (`authorization_servers` of the RFC 9728 metadata).
    public init(verifier: any AccessGrantAuthenticator, principals: OwnerPrincipals, issuer: String) {
        self.verifier = verifier
        self.principals = principals
        self.issuer = issuer
    }
}
