import OAuthGrants

/// The client a request to the token, revocation or introspection endpoint authenticated as: one registered through
/// `/oauth/register` (or a metadata document), or a confidential client made by the operator.
enum OAuthAuthenticatedClient: Sendable, Equatable {
    /// A registered client (public, or `client_secret_post`): the authorization code and refresh grants.
    case registered(OAuthClient)
    /// The operator's confidential client: the client credentials grant, and introspection when made for it.
    case confidential(OAuthConfidentialClient)

    /// Its `client_id`.
    var clientID: String {
        switch self {
        case .registered(let client): client.clientID
        case .confidential(let client): client.clientID
        }
    }
}
