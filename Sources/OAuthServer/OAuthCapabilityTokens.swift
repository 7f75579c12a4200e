import Directory
import JWT

/// How introspection recognises the agent surface's capability tokens (CONTRACT 1.4): their policy (RS256, issuer,
/// audience, the `jmap` scope, at most the capability TTL) and the directory in which their inbox must still be a
/// local mailbox (an agent revoked since is inactive).
public struct OAuthCapabilityTokens: Sendable {
    let policy: JWTPolicy
    let directory: any AccountDirectory

    /// - Parameters:
    ///   - issuer: the capability tokens' `iss`.
    ///   - audience: their `aud`.
    ///   - lifetime: the capability TTL.
    ///   - directory: where the token's inbox must be local.
    public init(issuer: String, audience: String, lifetime: Int64, directory: any AccountDirectory) {
        policy = CapabilityClaims.policy(issuer: issuer, audience: audience, lifetime: lifetime)
        self.directory = directory
    }
}
