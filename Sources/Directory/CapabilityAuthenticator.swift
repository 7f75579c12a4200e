import JWT

/// The agent capability token as a bearer: verified against ``CapabilityClaims/policy(issuer:audience:lifetime:)``,
/// then its inbox resolved in the directory, so that an agent revoked since the token was minted is refused.
public struct CapabilityAuthenticator: PrincipalAuthenticator {
    let keys: JWTKeySet
    let policy: JWTPolicy
    let directory: any AccountDirectory
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - keys: the key set holding the RS256 keys capability tokens are signed with.
    ///   - issuer: the required `iss`.
    ///   - audience: the required `aud`, the one string the agent surface mints.
    ///   - lifetime: the capability TTL; a token living longer is refused.
    ///   - directory: where the token's inbox must still be a local mailbox.
    ///   - clock: Unix seconds.
    public init(
        keys: JWTKeySet, issuer: String, audience: String, lifetime: Int64, directory: any AccountDirectory,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.keys = keys
        self.policy = CapabilityClaims.policy(issuer: issuer, audience: audience, lifetime: lifetime)
        self.directory = directory
        self.clock = clock
    }

    /// The token's account and inbox, or nil: a key other than an RS256 one, a bad signature, another issuer,
    /// audience, purpose or scope, a lifetime past the capability TTL, an expired token, or an inbox that is no
    /// longer local (the agent revoked).
    /// - Throws: storage errors of the directory.
    public func principal(for credentials: Credentials) async throws -> Principal? {
        guard
            let claims = try? keys.verify(
                credentials.bearerToken, as: CapabilityClaims.self, policy: policy, now: clock())
        else { return nil }
        guard case .local(let mailbox) = try await directory.resolve(claims.inbox) else { return nil }
        return Principal(accountID: claims.accountID, mailbox: mailbox)
    }
}
