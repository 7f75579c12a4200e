import AuthCrypto

/// Why a domain's DKIM keys could not be read, made or rotated. The reason names the domain or setting, never key
/// material.
public typealias DKIMKeyError = CodedError<DKIMKeyErrorCode>

/// What went wrong in a `DKIMKeyError`.
public enum DKIMKeyErrorCode: String, Sendable, Hashable {
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
