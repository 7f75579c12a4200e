/// What a token must be to be accepted where it is verified: its purpose (and so its algorithm), issuer, longest
/// lifetime, audience and scope. ``JWTKeySet/verify(_:policy:now:leeway:)`` checks all of it; a call site states the
/// policy once, never as checks written after verification.
public struct JWTPolicy: Sendable, Hashable {
    /// The required `pur`; its ``JWTPurpose/algorithm`` is the only algorithm (and key kind) accepted.
    public var purpose: JWTPurpose
    /// The required `iss`, compared exactly.
    public var issuer: String
    /// The longest lifetime accepted, in seconds: `exp - iat` must not exceed it. Set it to the TTL the tokens of
    /// this purpose are minted with, so that a token valid for longer than the server ever issues is refused.
    /// No leeway applies: `iat` and `exp` come from the same clock at minting.
    public var maximumLifetime: Int64
    /// The required `aud`: a single string equal to it (an array, even one holding it, is refused). Nil: the
    /// token must carry no `aud` (RFC 7519 4.1.3: a recipient that is not named in `aud` refuses the token), unless
    /// it is read as a ``JWTTypedClaims`` type that reads `aud` and `scope` itself.
    public var audience: String?
    /// The required `scope`: a single string equal to it. Nil: the token must carry no `scope`.
    public var scope: String?

    /// Creates a policy.
    /// - Parameters:
    ///   - purpose: the required `pur`, which fixes the algorithm.
    ///   - issuer: the required `iss`.
    ///   - maximumLifetime: the longest `exp - iat`, in seconds (the purpose's TTL).
    ///   - audience: the required single-string `aud`, or nil for tokens minted without one.
    ///   - scope: the required single-string `scope`, or nil for tokens minted without one.
    public init(
        purpose: JWTPurpose, issuer: String, maximumLifetime: Int64, audience: String? = nil, scope: String? = nil
    ) {
        self.purpose = purpose
        self.issuer = issuer
        self.maximumLifetime = maximumLifetime
        self.audience = audience
        self.scope = scope
    }
}
