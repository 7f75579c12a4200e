import AuthCrypto

/// Why the key store could not load, create or rotate keys.
///
/// The reason names files and system errors, never key material.
public typealias KeyStoreError = CodedError<KeyStoreErrorCode>

/// What went wrong in a `KeyStoreError`.
public enum KeyStoreErrorCode: String, Sendable, Hashable {
    /// A file or directory operation failed.
    case io
    /// The key directory holds something unreadable: bad metadata, a missing or damaged key file.
    case corrupt
    /// The caller's configuration is unusable (bad PEM, a public key without its private key, ...).
    case configuration
    /// The database holding the keys failed or is unreachable.
    case database
    /// No key of the store has the kid named (`postern keys retire --kid`).
    case unknownKey = "unknown-key"
}
