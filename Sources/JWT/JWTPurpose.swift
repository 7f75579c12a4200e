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

    /// The algorithm, and so the kind of key, every token of this purpose is signed with.
    public var algorithm: JWTAlgorithm {
        switch self {
        case .challenge, .session, .mailbox, .pro: return .hs256
        case .capability, .remoteLogin: return .rs256
        }
    }
}
