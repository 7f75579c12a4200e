/// The purpose of a Postern token (its `pur` claim), bound to the one algorithm tokens of that purpose are signed
/// with (CONTRACT.md section 0).
///
/// The binding is what keeps a purpose to its key: verification for a purpose refuses a token whose `kid` names a
/// key of the other algorithm before looking at its signature, so a session can never be an RS256 token and a
/// capability never an HMAC one, even when one of the server's own keys made the signature.
public enum JWTPurpose: String, Sendable, Hashable, CaseIterable {
    /// The agent proof-of-work challenge (CONTRACT 1.1): HS256, verified only by this server.
    case challenge
    /// The agent session (CONTRACT 1.3): HS256.
    case session
    /// The agent capability that opens JMAP (CONTRACT 1.4): RS256, so that a resource server verifies it from the
    /// JWKS alone.
    case capability
    /// The Mail.td-style mailbox token (CONTRACT 2.1): HS256.
    case mailbox
    /// The Mail.td-style Pro token (CONTRACT 2.1): HS256.
    case pro
    /// The remote-hash login token (CONTRACT 3): RS256, published in the JWKS.
    case remoteLogin = "remote-login"
    /// The OAuth 2.1 access token (RFC 9068, `api-docs/oauth-mcp-contract.md` 1.8): EdDSA, header `typ:"at+jwt"`,
    /// at most 15 minutes from `iat` to `exp`.
    case oauthAccess = "oauth-access"

    /// The algorithm, and so the kind of key, every token of this purpose is signed with.
    public var algorithm: JWTAlgorithm {
        switch self {
        case .challenge, .session, .mailbox, .pro: return .hs256
        case .capability, .remoteLogin: return .rs256
        case .oauthAccess: return .edDSA
        }
    }

    /// The header `typ` every token of this purpose is signed with and must carry to verify: `JWT` (which
    /// verification also takes as `jwt` or absent), or `at+jwt` for OAuth access tokens, which RFC 9068 section 4
    /// makes required (verification also takes `application/at+jwt`, in any case).
    public var tokenType: String {
        self == .oauthAccess ? "at+jwt" : "JWT"
    }

    /// The longest `exp - iat` a token of this purpose may have, whatever a policy allows, in seconds; nil for
    /// purposes whose lifetime only their policy bounds. Signing refuses longer tokens too.
    public var maximumLifetime: Int64? {
        self == .oauthAccess ? 900 : nil
    }
}
