import AuthCrypto
import CBOR

/// The WebAuthn Level 3 relying party: verifies registrations (section 7.1) and assertions (section 7.2) against its
/// ID and origins. Pure: the ceremony's challenge and the stored credential come in, a typed result or one
/// ``WebAuthnError`` goes out; storing challenges and credentials, and recording refusals, is the caller's.
///
/// The rules, in the order they are checked (a registration skips the signature and counter; an assertion the
/// attested credential):
/// 1. `clientDataJSON`: `type` is the ceremony's; `challenge` is the base64url of the issued challenge (compared in
///    constant time); `origin` is one of ``origins`` exactly; `crossOrigin` is absent or false.
/// 2. Authenticator data: `rpIdHash` is SHA-256 of ``id``; UP set; UV set when ``UserVerification/required``
///    (Postern's pages always require it); BS only with BE.
/// 3. Registration: AT set; the credential id the client sent is the attested one; the COSE key is a supported key
///    whose algorithm fits its type and is among those the ceremony offered.
/// 4. Assertion: the credential id is the stored one; the stored key's algorithm is the one stored with it; the
///    signature over `authenticatorData || SHA-256(clientDataJSON)` verifies; then the counter: when either the
///    stored or the received counter is non-zero, the received one must be greater, or the authenticator may have
///    been cloned (``WebAuthnError/possiblyCloned(stored:received:)``; the signature is checked first, so only the
///    key's holder can raise it).
public struct RelyingParty: Sendable {
    /// The RP ID: a domain the origins' hosts are equal to or under.
    public let id: String
    /// The origins a ceremony may run on (`https://host[:port]`, or `http://localhost[:port]`).
    public let origins: [String]
    /// The bounds of every CBOR decode.
    public let limits: CBORLimits

    /// Whether a ceremony needs the user verified (UV) or only present (UP).
    public enum UserVerification: Sendable, Equatable {
        /// UV must be set. Postern's ceremonies ask for it and require it.
        case required
        /// UV may be clear (for verifying published examples made without it).
        case notRequired
    }

    /// A relying party with `id` and `origins`.
    public init(id: String, origins: [String], limits: CBORLimits = CBORLimits()) {
        self.id = id
        self.origins = origins
        self.limits = limits
    }

    /// Verifies a registration (`navigator.credentials.create`'s response).
    /// - Parameters:
    ///   - credentialID: the response's `rawId`.
    ///   - clientDataJSON: the response's `clientDataJSON` bytes.
    ///   - attestationObject: the response's `attestationObject` bytes.
    ///   - challenge: the challenge this ceremony issued.
    ///   - algorithms: the algorithms the ceremony offered (`pubKeyCredParams`).
    ///   - userVerification: whether UV must be set.
    /// - Returns: what to store with the credential.
    /// - Throws: ``WebAuthnError``.
    public func verifyRegistration(
        credentialID: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8],
        algorithms: [COSEAlgorithm] = COSEAlgorithm.allCases, userVerification: UserVerification = .required
    ) throws(WebAuthnError) -> VerifiedRegistration {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let attestation = try AttestationObject(attestationObject, limits: limits)
        let data = try AuthenticatorData(attestation.authenticatorData, limits: limits)
        try checkFlagsAndScope(data, userVerification: userVerification)
        guard let attested = data.attestedCredential else { throw .missingAttestedCredential }
        guard constantTimeEquals(attested.credentialID, credentialID) else { throw .credentialMismatch }
        let key = try CredentialPublicKey(cose: attested.publicKey, limits: limits)
        guard algorithms.contains(key.algorithm) else { throw .unsupportedAlgorithm }
        return VerifiedRegistration(
            credentialID: attested.credentialID, publicKey: attested.publicKey, algorithm: key.algorithm,
            signCount: data.signCount, aaguid: attested.aaguid, attestationFormat: attestation.format,
            userVerified: data.flags.contains(.userVerified), backupEligible: data.flags.contains(.backupEligible),
            backupState: data.flags.contains(.backupState))
    }

    /// Verifies an assertion (`navigator.credentials.get`'s response) made with `credential`.
    /// - Parameters:
    ///   - credentialID: the response's `rawId`, by which the caller found `credential`.
    ///   - clientDataJSON: the response's `clientDataJSON` bytes.
    ///   - authenticatorData: the response's `authenticatorData` bytes.
    ///   - signature: the response's `signature` bytes.
    ///   - challenge: the challenge this ceremony issued.
    ///   - credential: the stored credential.
    ///   - userVerification: whether UV must be set.
    /// - Returns: the new counter and flags to store.
    /// - Throws: ``WebAuthnError``; ``WebAuthnError/possiblyCloned(stored:received:)`` for a counter that went back.
    public func verifyAssertion(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        challenge: [UInt8], credential: StoredCredential, userVerification: UserVerification = .required
    ) throws(WebAuthnError) -> VerifiedAssertion {
        guard constantTimeEquals(credential.credentialID, credentialID) else { throw .credentialMismatch }
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try AuthenticatorData(authenticatorData, limits: limits)
        guard data.attestedCredential == nil else { throw .malformedAuthenticatorData }
        try checkFlagsAndScope(data, userVerification: userVerification)
        let key = try CredentialPublicKey(cose: credential.publicKey, limits: limits)
        guard key.algorithm == credential.algorithm else { throw .algorithmMismatch }
        guard key.verify(signature: signature, message: authenticatorData + SHA256.hash(clientDataJSON)) else {
            throw .badSignature
        }
        if data.signCount != 0 || credential.signCount != 0 {
            guard data.signCount > credential.signCount else {
                throw .possiblyCloned(stored: credential.signCount, received: data.signCount)
            }
        }
        return VerifiedAssertion(
            credentialID: credential.credentialID, signCount: data.signCount,
            userVerified: data.flags.contains(.userVerified), backupEligible: data.flags.contains(.backupEligible),
            backupState: data.flags.contains(.backupState))
    }

    /// Rule 1: the collected client data.
    func checkClientData(_ json: [UInt8], type: String, challenge: [UInt8]) throws(WebAuthnError) {
        let clientData = try CollectedClientData(json: json)
        guard clientData.type == type else { throw .wrongCeremonyType }
        guard let sent = Base64URL.decode(clientData.challenge), !challenge.isEmpty,
            constantTimeEquals(sent, challenge)
        else { throw .challengeMismatch }
        guard origins.contains(clientData.origin) else { throw .originNotAllowed }
        guard !clientData.crossOrigin else { throw .crossOrigin }
    }

    /// Rule 2: the RP ID hash and the flags.
    func checkFlagsAndScope(_ data: AuthenticatorData, userVerification: UserVerification) throws(WebAuthnError) {
        guard constantTimeEquals(data.relyingPartyIDHash, SHA256.hash(id)) else { throw .relyingPartyMismatch }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        if userVerification == .required, !data.flags.contains(.userVerified) { throw .userNotVerified }
        if data.flags.contains(.backupState), !data.flags.contains(.backupEligible) { throw .invalidBackupFlags }
    }
}

/// A registered credential as the relying party needs it back for an assertion.
public struct StoredCredential: Sendable, Equatable {
    /// The credential id.
    public var credentialID: [UInt8]
    /// The COSE key, as registered.
    public var publicKey: [UInt8]
    /// The algorithm stored with the key at registration.
    public var algorithm: COSEAlgorithm
    /// The last counter accepted.
    public var signCount: UInt32

    /// A stored credential.
    public init(credentialID: [UInt8], publicKey: [UInt8], algorithm: COSEAlgorithm, signCount: UInt32) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
    }
}

/// A verified registration: what to store.
public struct VerifiedRegistration: Sendable, Equatable {
    /// The credential id.
    public let credentialID: [UInt8]
    /// The COSE key, exactly as the authenticator wrote it.
    public let publicKey: [UInt8]
    /// The key's algorithm.
    public let algorithm: COSEAlgorithm
    /// The counter at registration.
    public let signCount: UInt32
    /// The authenticator model's AAGUID (16 bytes).
    public let aaguid: [UInt8]
    /// The attestation statement's format, kept unverified.
    public let attestationFormat: String
    /// Whether UV was set.
    public let userVerified: Bool
    /// BE: the credential may be synced ("synced passkey").
    public let backupEligible: Bool
    /// BS: the credential is backed up now.
    public let backupState: Bool
}

/// A verified assertion: the counter and flags to store.
public struct VerifiedAssertion: Sendable, Equatable {
    /// The credential that signed.
    public let credentialID: [UInt8]
    /// The new counter.
    public let signCount: UInt32
    /// Whether UV was set.
    public let userVerified: Bool
    /// BE, as the authenticator reports it now.
    public let backupEligible: Bool
    /// BS, as the authenticator reports it now.
    public let backupState: Bool
}
