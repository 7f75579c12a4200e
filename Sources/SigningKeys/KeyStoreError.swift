/// Why the key store could not load, create or rotate keys.
///
/// The reason names files and system errors, never key material.
public struct KeyStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
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

    /// What went wrong.
    public let code: Code
    /// A secret-free explanation, naming the file or setting involved.
    public let reason: String

    /// Creates an error; `reason` must not contain key material.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// "<code>: <reason>".
    public var description: String { "\(code.rawValue): \(reason)" }
}
