import Directory
import JWT

/// The claims of an owner's OAuth access token (RFC 9068, `api-docs/oauth-mcp-contract.md` 1.8): minted by the
/// authorization server with ``claims(issuer:issuedAt:ttl:)``, read back by every verifier with
/// ``verify(_:keys:issuer:lifetime:now:)``. `sub` is the owner, `client_id` the client, `aud` the resource the token
/// was asked for, `scope` its permissions, `jti` the row its grant is found by.
public struct OAuthAccessClaims: JWTTypedClaims, Equatable {
    /// Every access token is of this purpose (EdDSA, `typ: at+jwt`).
    public static let purpose = JWTPurpose.oauthAccess
    /// `aud` and `scope` are read here: the audience is whichever resource the token was asked for (the verifier
    /// decides what it opens) and the scope is a set of permissions.
    public static let readsAudienceAndScope = true
    /// The prefix of the resources bound to one inbox: `urn:atomicmail:agent:{accountId}`.
    public static let inboxResourcePrefix = "urn:atomicmail:agent:"

    /// The owner who approved the grant (`sub`).
    public let ownerID: String
    /// The client the grant is for (`client_id`).
    public let clientID: String
    /// The resource the token was minted for, exactly as asked (`aud`).
    public let resource: String
    /// What the token may do (`scope`, `mail.read` and/or `mail.send`).
    public let permissions: MailPermissions
    /// The token's id (`jti`): its `oauth_access_tokens` row (or, delegated, its `oauth_delegated_tokens` row).
    public let jti: String
    /// Who acts for the owner (`act`, RFC 8693): set on a token minted by token exchange, where `client_id` is the
    /// current actor; nil on every other token.
    public let act: OAuthActorChain?

    /// - Parameters:
    ///   - ownerID: `sub`.
    ///   - clientID: `client_id`.
    ///   - resource: `aud`.
    ///   - permissions: `scope`.
    ///   - jti: the token id.
    ///   - act: the actors of a delegated token (`act`), nil for any other.
    public init(
        ownerID: String, clientID: String, resource: String, permissions: MailPermissions, jti: String,
        act: OAuthActorChain? = nil
    ) {
        self.ownerID = ownerID
        self.clientID = clientID
        self.resource = resource
        self.permissions = permissions
        self.jti = jti
        self.act = act
    }

    /// Reads `sub`, `jti`, `aud`, `scope` and `client_id` of a token whose signature, issuer, purpose and lifetime
    /// were checked.
    /// - Throws: `JWTError` `.wrongAudience` when `aud` is not one string; `.wrongScope` when `scope` is not a
    ///   string of `mail.read` and `mail.send` only; `.missingClaim` when `sub`, `jti` or `client_id` is not a string;
    ///   `.malformed` when `act` is present and not a chain of objects with a string `sub`.
    public init(verified claims: JWTClaims) throws(JWTError) {
        guard let resource = claims["aud"]?.stringValue else { throw JWTError(.wrongAudience, "aud is not a string") }
        guard let scope = claims["scope"]?.stringValue, let permissions = MailPermissions(scope: scope) else {
            throw JWTError(.wrongScope, "scope is not mail.read or mail.send")
        }
        guard let owner = claims.sub, let jti = claims.jti, let client = claims["client_id"]?.stringValue else {
            throw JWTError(.missingClaim, "sub, jti or client_id is missing")
        }
        var act: OAuthActorChain?
        if let claim = claims["act"] {
            guard let chain = OAuthActorChain(claim: claim) else {
                throw JWTError(.malformed, "act is not an actor chain")
            }
            act = chain
        }
        self.init(ownerID: owner, clientID: client, resource: resource, permissions: permissions, jti: jti, act: act)
    }

    /// The claims to sign, in the order RFC 9068 tokens of this server carry them: `iss`, `sub`, `iat`, `exp`,
    /// `jti`, `pur`, `aud`, `client_id`, `scope`, and `act` on a delegated token.
    /// - Parameters:
    ///   - issuer: `iss`, the authorization server's issuer.
    ///   - issuedAt: `iat`, Unix seconds.
    ///   - ttl: seconds until `exp`.
    public func claims(issuer: String, issuedAt: Int64, ttl: Int64) -> JWTClaims {
        var claims = JWTClaims(
            issuer: issuer, subject: ownerID, purpose: Self.purpose, issuedAt: issuedAt, ttl: ttl, jti: jti)
        claims["aud"] = .string(resource)
        claims["client_id"] = .string(clientID)
        claims["scope"] = .string(permissions.scope)
        if let act { claims["act"] = act.claim }
        return claims
    }

    /// Verifies `token` as an access token of `issuer` living at most `lifetime` seconds and reads its claims; the
    /// caller then decides whether ``resource`` is one it serves.
    /// - Throws: `JWTError` naming the first failed check.
    public static func verify(_ token: String, keys: JWTKeySet, issuer: String, lifetime: Int64, now: Int64)
        throws(JWTError) -> OAuthAccessClaims
    {
        try keys.verify(token, as: OAuthAccessClaims.self, policy: policy(issuer: issuer, lifetime: lifetime), now: now)
    }

    /// What an access token of `issuer` living at most `lifetime` seconds must be.
    public static func policy(issuer: String, lifetime: Int64) -> JWTPolicy {
        JWTPolicy(purpose: purpose, issuer: issuer, maximumLifetime: lifetime)
    }
}
