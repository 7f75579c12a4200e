import CBOR

/// The authenticator data of a registration or an assertion (WebAuthn Level 3 section 6.1), parsed strictly: the
/// 37 fixed bytes, then the attested credential data when AT is set, then the extensions map when ED is set, then
/// nothing.
public struct AuthenticatorData: Sendable, Equatable {
    /// SHA-256 of the RP ID the authenticator scoped the credential to.
    public let relyingPartyIDHash: [UInt8]
    /// The flags byte.
    public let flags: Flags
    /// The signature counter (0 for authenticators that keep none).
    public let signCount: UInt32
    /// The attested credential data (registrations only).
    public let attestedCredential: AttestedCredential?

    /// The flags of section 6.1.
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: the user was present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified (PIN, biometrics).
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (a synced passkey).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up now.
        public static let backupState = Flags(rawValue: 0x10)
        /// AT: attested credential data follows.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: an extensions map follows.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// Attested credential data (section 6.5.2).
    public struct AttestedCredential: Sendable, Equatable {
        /// The authenticator model's AAGUID, 16 bytes (all zero under `none` attestation).
        public let aaguid: [UInt8]
        /// The credential id, 1 to 1023 bytes.
        public let credentialID: [UInt8]
        /// The credential public key's COSE encoding, exactly as the authenticator wrote it.
        public let publicKey: [UInt8]
    }

    /// The longest credential id WebAuthn allows.
    public static let maximumCredentialIDByteCount = 1023

    /// Parses authenticator data.
    /// - Parameter limits: the bounds of the COSE key and extensions decodes.
    /// - Throws: ``WebAuthnError/malformedAuthenticatorData``.
    public init(_ bytes: [UInt8], limits: CBORLimits = CBORLimits()) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformedAuthenticatorData }
        relyingPartyIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var position = 37
        let decoder = CBORDecoder(limits: limits)
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= position + 18 else { throw .malformedAuthenticatorData }
            let aaguid = Array(bytes[position..<position + 16])
            let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard length >= 1, length <= Self.maximumCredentialIDByteCount, bytes.count >= position + length else {
                throw .malformedAuthenticatorData
            }
            let credentialID = Array(bytes[position..<position + length])
            position += length
            guard position < bytes.count, let (key, end) = try? decoder.decodePrefix(bytes, from: position),
                key.mapEntries != nil
            else { throw .malformedAuthenticatorData }
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKey: Array(bytes[position..<end]))
            position = end
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            guard position < bytes.count, let (extensions, end) = try? decoder.decodePrefix(bytes, from: position),
                extensions.mapEntries != nil
            else { throw .malformedAuthenticatorData }
            position = end
        }
        guard position == bytes.count else { throw .malformedAuthenticatorData }
    }
}
