/// When and how an owner session proved its owner: what an OpenID relying party is told as `auth_time` and `amr`.
public struct OwnerSessionProof: Sendable, Equatable {
    /// How a sign-in proved the owner; the raw values are RFC 8176's `amr` words (`owner_sessions.method`).
    public enum Method: String, Sendable, Equatable, CaseIterable {
        /// A password.
        case password = "pwd"
        /// A passkey (a hardware- or platform-bound key with user verification).
        case passkey = "hwk"
        /// A sign-in provider (Google, GitHub, an OpenID provider).
        case provider = "fed"
    }

    /// When the session was opened by its sign-in, Unix seconds (`auth_time`).
    public let openedAt: Int64
    /// How that sign-in proved the owner.
    public let method: Method
    /// SHA-256 of the session's cookie token: how the session is named without its token (`oidc_session_clients`).
    public let digest: [UInt8]

    public init(openedAt: Int64, method: Method, digest: [UInt8]) {
        self.openedAt = openedAt
        self.method = method
        self.digest = digest
    }
}
