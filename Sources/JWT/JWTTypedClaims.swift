/// The claims of one kind of token as a Swift type: what a module that verifies a token minted by another reads,
/// instead of looking claims up by name after verification.
public protocol JWTTypedClaims: Sendable {
    /// The purpose every token of this kind carries; the policy it is verified with must name it.
    static var purpose: JWTPurpose { get }

    /// Reads the claims of a token whose signature and policy were checked.
    /// - Throws: `JWTError` `.missingClaim` when a claim this type requires is absent or of the wrong type.
    init(verified claims: JWTClaims) throws(JWTError)
}

extension JWTKeySet {
    /// Verifies `token` against `policy` (see ``verify(_:policy:now:leeway:)``), then reads it as `Claims`.
    /// - Parameters:
    ///   - type: the kind of token expected.
    ///   - policy: what the token must be; its purpose must be `Claims.purpose`.
    ///   - now: the current time in Unix seconds.
    ///   - leeway: allowed clock skew in seconds, clamped to 0...30.
    /// - Throws: `JWTError` naming the first failed check.
    /// - Warning: a policy of another purpose than the type's is a programming error and traps.
    public func verify<Claims: JWTTypedClaims>(
        _ token: String, as type: Claims.Type, policy: JWTPolicy, now: Int64, leeway: Int64 = 30
    ) throws(JWTError) -> Claims {
        precondition(policy.purpose == Claims.purpose, "a policy of another purpose than the claims' type")
        return try Claims(verified: verify(token, policy: policy, now: now, leeway: leeway))
    }
}
