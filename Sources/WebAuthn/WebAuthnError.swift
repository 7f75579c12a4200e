/// Why a registration or an assertion is refused. Surfaces show one generic message for every case (a refusal must
/// not tell an attacker which check failed); the case is for tests, logs, metrics and the audit trail.
public enum WebAuthnError: Error, Sendable, Equatable {
    /// `clientDataJSON` is not a JSON object with string `type`, `challenge` and `origin` (and a boolean
    /// `crossOrigin` if any).
    case malformedClientData
    /// The attestation object is not canonical CBOR within the limits, or lacks `fmt`, `attStmt` or `authData`.
    case malformedAttestationObject
    /// The authenticator data is shorter than its flags say, has bytes after its parts, or a COSE key or extensions
    /// that are not canonical CBOR within the limits; or an assertion's carries attested credential data.
    case malformedAuthenticatorData
    /// The credential public key is not a COSE key of a supported type, or its parameters are not a usable key.
    case malformedPublicKey
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
    case wrongCeremonyType
    /// `clientDataJSON.challenge` is not the base64url of the challenge this ceremony issued.
    case challengeMismatch
    /// `clientDataJSON.origin` is not one of the relying party's origins.
    case originNotAllowed
    /// `clientDataJSON.crossOrigin` is true: the ceremony ran in a cross-origin frame.
    case crossOrigin
    /// The authenticator data's `rpIdHash` is not SHA-256 of the relying party's ID.
    case relyingPartyMismatch
    /// The user-present flag (UP) is clear.
    case userNotPresent
    /// The user-verified flag (UV) is clear where verification is required.
    case userNotVerified
    /// The backup-state flag (BS) is set while backup-eligible (BE) is clear, which WebAuthn Level 3 forbids.
    case invalidBackupFlags
    /// A registration's authenticator data has no attested credential data (AT clear).
    case missingAttestedCredential
    /// The credential id the client names is not the one the authenticator data or the stored credential holds.
    case credentialMismatch
    /// The key's COSE algorithm is not one the relying party accepts (ES256, EdDSA, RS256).
    case unsupportedAlgorithm
    /// The COSE key's algorithm does not fit its key type or curve, or differs from the stored credential's.
    case algorithmMismatch
    /// The assertion's signature does not verify with the stored public key.
    case badSignature
    /// A valid signature whose counter does not go up from the stored one (either of them non-zero): the
    /// authenticator may have been cloned. The sign-in is refused and the caller records the event.
    case possiblyCloned(stored: UInt32, received: UInt32)
}
