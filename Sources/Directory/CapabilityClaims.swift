import JWT

/// The claims of the agent capability token (CONTRACT.md 1.4): minted by the agent surface, it opens JMAP.
/// `sub` is the agent's account id (JMAP's accountId), `inboxId` its inbox address, `scope` what it opens.
public struct CapabilityClaims: JWTTypedClaims, Equatable {
    /// Every capability token is of this purpose (RS256, so that a resource server verifies it from the JWKS).
    public static let purpose = JWTPurpose.capability
    /// The one scope capability tokens carry: the JMAP API.
    public static let jmapScope = "jmap"

    /// The agent's account id (`sub`).
    public let accountID: String
    /// The agent's inbox address (`inboxId`).
    public let inbox: String

    /// - Parameters:
    ///   - accountID: the agent's account id.
    ///   - inbox: its inbox address (``AgentInbox/address(username:domain:)``).
    public init(accountID: String, inbox: String) {
        self.accountID = accountID
        self.inbox = inbox
    }

    /// Reads `sub` and `inboxId`; `scope`, `aud` and the rest were checked by the policy.
    /// - Throws: `JWTError` `.missingClaim` when `sub` or `inboxId` is not a string.
    public init(verified claims: JWTClaims) throws(JWTError) {
        guard let accountID = claims.sub else { throw JWTError(.missingClaim, "sub is missing") }
        guard let inbox = claims["inboxId"]?.stringValue else { throw JWTError(.missingClaim, "inboxId is missing") }
        self.init(accountID: accountID, inbox: inbox)
    }

    /// What a capability token must be: RS256 of `issuer`, for `audience`, scoped to JMAP, living at most
    /// `lifetime` seconds (the TTL the agent surface mints it with).
    public static func policy(issuer: String, audience: String, lifetime: Int64) -> JWTPolicy {
        JWTPolicy(
            purpose: purpose, issuer: issuer, maximumLifetime: lifetime, audience: audience, scope: jmapScope)
    }

    /// The claims to sign, in the order the contract lists them: `iss`, `sub`, `iat`, `exp`, `jti`, `pur`, `aud`,
    /// `inboxId`, `scope`.
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - audience: `aud`.
    ///   - issuedAt: `iat`, Unix seconds.
    ///   - ttl: seconds until `exp`.
    ///   - jti: the token id.
    public func claims(issuer: String, audience: String, issuedAt: Int64, ttl: Int64, jti: String) -> JWTClaims {
        var claims = JWTClaims(
            issuer: issuer, subject: accountID, purpose: Self.purpose, issuedAt: issuedAt, ttl: ttl, jti: jti)
        claims["aud"] = .string(audience)
        claims["inboxId"] = .string(inbox)
        claims["scope"] = .string(Self.jmapScope)
        return claims
    }
}
