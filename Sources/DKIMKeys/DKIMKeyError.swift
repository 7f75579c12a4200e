/// Why a domain's DKIM keys could not be read, made or rotated. The reason names the domain or setting, never key
/// material.
public struct DKIMKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// The domain is not a host name.
        case invalidDomain = "invalid-domain"
        /// `POSTERN_KEY_SECRET` is missing or short (PostgreSQL), or a key does not open with it.
        case configuration
        /// `dkim_keys` holds a row that is not a key.
        case corrupt
        /// The database failed or is unreachable.
        case database
        /// A key could not be made.
        case keyGeneration = "key-generation"
    }

    /// What went wrong.
    public let code: Code
    /// A secret-free explanation.
    public let reason: String

    /// Creates an error; `reason` must not contain key material.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// "<code>: <reason>".
    public var description: String { "\(code.rawValue): \(reason)" }
}
