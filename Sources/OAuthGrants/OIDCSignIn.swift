/// What an owner's sign-in to a relying party carries from the authorization request to the ID token: bound to an
/// authorization code (`oidc_codes`), read back once when the code is redeemed.
public struct OIDCSignIn: Sendable, Equatable {
    /// The relying party.
    public let clientID: String
    /// The owner (the ID token's `sub`).
    public let ownerID: String
    /// The redirect URI the code was sent to; the token request must name it again.
    public let redirectURI: String
    /// The PKCE S256 challenge; nil only for a legacy client that may omit PKCE.
    public let codeChallenge: String?
    /// The relying party's `nonce`, echoed in the ID token.
    public let nonce: String?
    /// The scopes granted (`openid` first).
    public let scopes: [String]
    /// When the session signed in (`auth_time`).
    public let authTime: Int64
    /// How it signed in: the session's methods as stored (`AuthenticationMethods.stored`, RFC 8176 `amr` words
    /// separated by spaces, `mfa` last when two or more were used: `pwd`, `hwk`, `fed`, `pwd otp mfa`).
    public let method: String
    /// SHA-256 of the owner session's token: which session signed into the relying party (back-channel logout).
    public let sessionDigest: [UInt8]
    /// The claims the request asked for by name (the `claims` parameter), for the ID token and userinfo.
    public let claims: OIDCClaimsRequest

    public init(
        clientID: String, ownerID: String, redirectURI: String, codeChallenge: String?, nonce: String?,
        scopes: [String], authTime: Int64, method: String, sessionDigest: [UInt8], claims: OIDCClaimsRequest = .none
    ) {
        self.clientID = clientID
        self.ownerID = ownerID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.scopes = scopes
        self.authTime = authTime
        self.method = method
        self.sessionDigest = sessionDigest
        self.claims = claims
    }
}
