import SignInMethods

/// When and how an owner session proved its owner: what an OpenID relying party is told as `auth_time` and `amr`.
public struct OwnerSessionProof: Sendable, Equatable {
    /// When the session was opened by its sign-in, Unix seconds (`auth_time`).
    public let openedAt: Int64
    /// How that sign-in proved the owner (`owner_sessions.methods`, migration 0074; the ID token's `amr`).
    public let methods: AuthenticationMethods
    /// SHA-256 of the session's cookie token: how the session is named without its token (`oidc_session_clients`).
    public let digest: [UInt8]

    public init(openedAt: Int64, methods: AuthenticationMethods, digest: [UInt8]) {
        self.openedAt = openedAt
        self.methods = methods
        self.digest = digest
    }
}
