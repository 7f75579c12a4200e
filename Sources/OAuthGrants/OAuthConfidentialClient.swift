import AuthCrypto
import Directory

/// A confidential client made by the operator (`postern oauth client create`, migration 0069): it authenticates with
/// a secret (`client_secret_basic`, `client_secret_post`) or a signed assertion (`private_key_jwt`, RFC 7523), takes
/// tokens of its own with the client credentials grant (their `sub` is the client), within the scopes and inboxes it
/// was bound to, and may introspect tokens (RFC 7662) when it was made for that.
public struct OAuthConfidentialClient: Sendable, Equatable {
    /// How the client authenticates at the token, revocation and introspection endpoints.
    public enum AuthMethod: String, Sendable, Equatable, CaseIterable {
        /// `Authorization: Basic` with the form-urlencoded `client_id:client_secret` (RFC 6749 section 2.3.1).
        case clientSecretBasic = "client_secret_basic"
        /// `client_id` and `client_secret` in the form body.
        case clientSecretPost = "client_secret_post"
        /// A JWT it signs with a key of its JWKS (RFC 7523 section 2.2).
        case privateKeyJWT = "private_key_jwt"

        /// Whether the client holds a secret (shown once, stored as a digest).
        public var usesSecret: Bool { self != .privateKeyJWT }
    }

    /// The client identifier.
    public let clientID: String
    /// The name the operator gave it.
    public let name: String
    /// How it authenticates.
    public let authMethod: AuthMethod
    /// SHA-256 of the current secret; nil for `private_key_jwt`.
    let secretDigest: [UInt8]?
    /// SHA-256 of the secret before the last rotation, good until ``previousSecretUntil``.
    let previousSecretDigest: [UInt8]?
    /// Until when (Unix seconds) the previous secret still authenticates.
    public let previousSecretUntil: Int64?
    /// The client's keys (a JWKS document) for `private_key_jwt`, when given inline.
    public let jwks: String?
    /// Where the client's keys are fetched for `private_key_jwt`, when not inline.
    public let jwksURI: String?
    /// The widest permissions its tokens may carry.
    public let permissions: MailPermissions
    /// Whether it may call `/oauth/introspect`.
    public let introspection: Bool
    /// The owner who made it (an owner's agent client); nil for the operator's.
    public let ownerID: String?
    /// The agent inboxes (account ids, lowercase) its tokens reach.
    public let inboxIDs: [String]
    /// When it was made, Unix seconds.
    public let createdAt: Int64

    /// A client as stored.
    public init(
        clientID: String, name: String, authMethod: AuthMethod, secretDigest: [UInt8]?,
        previousSecretDigest: [UInt8]? = nil, previousSecretUntil: Int64? = nil, jwks: String? = nil,
        jwksURI: String? = nil, permissions: MailPermissions, introspection: Bool, ownerID: String? = nil,
        inboxIDs: [String], createdAt: Int64
    ) {
        self.clientID = clientID
        self.name = name
        self.authMethod = authMethod
        self.secretDigest = secretDigest
        self.previousSecretDigest = previousSecretDigest
        self.previousSecretUntil = previousSecretUntil
        self.jwks = jwks
        self.jwksURI = jwksURI
        self.permissions = permissions
        self.introspection = introspection
        self.ownerID = ownerID
        self.inboxIDs = inboxIDs
        self.createdAt = createdAt
    }

    /// Whether `secret` is this client's current secret, or its previous one while the rotation's overlap lasts.
    /// Both digests are compared in constant time, whichever matches.
    public func secretMatches(_ secret: String, now: Int64) -> Bool {
        let digest = OAuthDigest.of(secret)
        let current = secretDigest.map { constantTimeEquals(digest, $0) } ?? false
        var previous = false
        if let old = previousSecretDigest, let until = previousSecretUntil {
            previous = constantTimeEquals(digest, old) && now < until
        }
        return current || previous
    }
}
