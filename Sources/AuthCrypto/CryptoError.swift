/// A failure of a cryptographic primitive.
///
/// The description names the operation and, for OpenSSL failures, OpenSSL's own reason text.
/// It never carries key material, passwords, digests or any other input.
public typealias CryptoError = CodedError<CryptoErrorCode>

/// What went wrong in a `CryptoError`.
public enum CryptoErrorCode: String, Sendable, Hashable {
    /// A parameter is outside what the primitive accepts (sizes, costs, lengths).
    case invalidParameters
    /// A PEM text or DER structure could not be decoded as the expected key.
    case invalidKey
    /// The key is of the wrong type or too small (RSA keys must have at least 2048 bits).
    case unsupportedKey
    /// Key generation failed inside OpenSSL.
    case keyGenerationFailed
    /// Signing failed inside OpenSSL.
    case signingFailed
    /// Encoding a key to PEM failed inside OpenSSL.
    case encodingFailed
    /// An encoded hash (Argon2 PHC string) is malformed or not supported.
    case invalidEncodedHash
    /// scrypt failed (for example memory could not be allocated).
    case scryptFailed
    /// libargon2 reported an error.
    case argon2Failed
    /// A digest or MAC computation failed inside OpenSSL.
    case digestFailed
    /// Sealed data did not open: another key, or bytes changed since they were sealed.
    case authenticationFailed
}
