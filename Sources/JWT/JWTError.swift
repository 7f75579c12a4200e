import AuthCrypto

/// Why a token was refused, or why a key or signature could not be made.
///
/// The reason is a fixed text: it never contains the token, its claims, the `kid` or key material,
/// so it is safe to log. Map every code to one client-facing message (such as 401 "Invalid token").
public typealias JWTError = CodedError<JWTErrorCode>

/// What went wrong in a `JWTError`.
public enum JWTErrorCode: String, Sendable, Hashable {
    /// Not three base64url segments of JSON objects, too long, or a bad header field.
    case malformed
    /// The `kid` names no key in the set (or is missing).
    case unknownKey
    /// The header's `alg` is not HS256, RS256 or EdDSA (for example `none`).
    case unsupportedAlgorithm
    /// The header's `alg` is not the algorithm of the key named by `kid`.
    case algorithmMismatch
    /// The key named by `kid` is not of the algorithm the expected purpose is signed with.
    case wrongAlgorithm
    /// The signature is missing, of the wrong size or does not verify.
    case badSignature
    /// `exp` is in the past, beyond the leeway.
    case expired
    /// `nbf` or `iat` is in the future, beyond the leeway.
    case notYetValid
    /// `iss` is not exactly the expected issuer.
    case wrongIssuer
    /// `pur` is not exactly the expected purpose.
    case wrongPurpose
    /// `aud` is not the expected single string, or is present where none is expected; for an id_token, it does
    /// not contain the client id.
    case wrongAudience
    /// An id_token's `azp` is not the client id, or is missing while its `aud` names other audiences too.
    case wrongAuthorizedParty
    /// An id_token's `nonce` is not the login transaction's.
    case wrongNonce
    /// `scope` is not the expected single string, or is present where none is expected.
    case wrongScope
    /// `exp - iat` is longer than the purpose's lifetime.
    case lifetimeTooLong
    /// A required claim (`exp`, `iat`, `jti`, `iss`, `pur`, or one a typed claims type requires) is missing or
    /// of the wrong type.
    case missingClaim
    /// The header has a `crit` member; no extensions are understood.
    case criticalHeader
    /// The key set has no active signing key for the algorithm.
    case noSigningKey
    /// A key given to the key set is unacceptable (short secret, bad kid, duplicate kid).
    case invalidKey
    /// Signing failed inside the crypto library.
    case signingFailed
}
