/// The claims of one kind of token as a Swift type: what a module that verifies a token minted by another reads,
/// instead of looking claims up by name after verification.
public protocol JWTTypedClaims: Sendable {
    /// The purpose every token of this kind carries; the policy it is verified with must name it.
    static var purpose: JWTPurpose { get }

    /// Whether this type reads `aud` and `scope` itself (tokens whose audience is whichever resource they were asked
    /// for, and whose scope is a set the type parses): the policy then names neither. False by default.
    static var readsAudienceAndScope: Bool { get }

    /// Reads the claims of a token whose signature and policy were checked.
    /// - Throws: `JWTError` `.missingClaim` when a claim this type requires is absent or of the wrong type.
    init(verified claims: JWTClaims) throws(JWTError)
}

extension JWTTypedClaims {
    /// By default the policy checks `aud` and `scope`.
    public static var readsAudienceAndScope: Bool { false }
}

extension JWTKeySet {
    /// Verifies `token` against `policy` (see ``verify(_:policy:now:leeway:)``), then reads it as `Claims`.
    /// - Parameters:
    ///   - type: the kind of token expected.
    ///   - policy: what the token must be; its purpose must be `Claims.purpose`.
    ///   - now: the current time in Unix seconds.
    ///   - leeway: allowed clock skew in seconds, clamped to 0...30.
    /// - Throws: `JWTError` naming the first failed check.
    /// - Warning: a policy of another purpose than the type's, or one naming an audience or scope for a type that
    ///   reads them itself, is a programming error and traps.
    public func verify<Claims: JWTTypedClaims>(
        _ token: String, as type: Claims.Type, policy: JWTPolicy, now: Int64, leeway: Int64 = 30
    ) throws(JWTError) -> Claims {
        try verifyWithLifetime(token, as: type, policy: policy, now: now, leeway: leeway).claims
    }

    /// ``verify(_:as:policy:now:leeway:)`` with the `iat` and `exp` its checks read, for an answer that tells them
    /// (introspection) without reading the payload a second time.
    public func verifyWithLifetime<Claims: JWTTypedClaims>(
        _ token: String, as type: Claims.Type, policy: JWTPolicy, now: Int64, leeway: Int64 = 30
    ) throws(JWTError) -> JWTVerified<Claims> {
        precondition(policy.purpose == Claims.purpose, "a policy of another purpose than the claims' type")
        precondition(
            !Claims.readsAudienceAndScope || (policy.audience == nil && policy.scope == nil),
            "a policy naming an audience or scope for claims that read them")
        let claims = try verify(
            token, policy: policy, now: now, leeway: leeway, checkingAudienceAndScope: !Claims.readsAudienceAndScope)
        // The checks required both (`.missingClaim` otherwise).
        guard let issuedAt = claims.iat, let expiresAt = claims.exp else {
            throw JWTError(.missingClaim, "iat or exp is missing")
        }
        return JWTVerified(
            claims: try Claims(verified: claims), issuedAt: issuedAt, expiresAt: expiresAt, payload: claims)
    }
}

/// A token verified and read as `Claims`, with its `iat` and `exp` (Unix seconds) and every claim of its payload (a
/// member the type does not read, such as an access token's `may_act`, without reading the payload again).
public struct JWTVerified<Claims: JWTTypedClaims>: Sendable {
    public let claims: Claims
    public let issuedAt: Int64
    public let expiresAt: Int64
    public let payload: JWTClaims
}
