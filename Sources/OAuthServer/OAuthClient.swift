import AuthCrypto
import OAuthGrants

/// A client the server knows: registered through `/oauth/register` (RFC 7591).
public struct OAuthClient: Sendable, Equatable {
    /// How a client authenticates at the token and revocation endpoints.
    public enum AuthMethod: String, Sendable, Equatable {
        /// A public client: `client_id` in the body, PKCE only.
        case none
        /// `client_id` and `client_secret` in the form body.
        case clientSecretPost = "client_secret_post"
    }

    /// The client identifier.
    public let clientID: String
    /// How it authenticates at the token and revocation endpoints.
    public let authMethod: AuthMethod
    /// SHA-256 of the client secret; nil for public clients.
    let secretDigest: [UInt8]?
    /// The name the consent page shows, if the client gave one.
    public let name: String?
    /// The redirect URIs, compared by exact string equality.
    public let redirectURIs: [String]
    /// The scopes the client registered for; nil when it named none (then any supported scope).
    public let scopes: [String]?
    /// Whether it registered the `refresh_token` grant type (the default): one that did not gets no refresh token
    /// and is `unauthorized_client` at a refresh (RFC 6749 section 5.2).
    public var refreshes = true
    /// Whether it registered the device-code grant type (RFC 8628): only such a client may start a device
    /// authorization (`unauthorized_client` otherwise).
    public var takesDeviceCodes = false

    /// Whether `secret` is this client's secret (constant-time; false for public clients).
    func secretMatches(_ secret: String?) -> Bool {
        guard let secretDigest, let secret else { return false }
        return constantTimeEquals(OAuthDigest.of(secret), secretDigest)
    }
}
