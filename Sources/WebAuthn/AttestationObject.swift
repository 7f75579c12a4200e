import CBOR

/// A registration's attestation object (WebAuthn Level 3 section 6.5.4): the statement's format, the statement, and
/// the authenticator data. The relying party asks for `none` attestation and takes any statement without checking a
/// trust chain: it keeps the format and checks only that the statement is a map.
public struct AttestationObject: Sendable {
    /// The attestation statement format (`none`, `packed`, `tpm`, …), kept with the credential.
    public let format: String
    /// The authenticator data's bytes.
    public let authenticatorData: [UInt8]

    /// Parses an attestation object.
    /// - Throws: ``WebAuthnError/malformedAttestationObject``.
    public init(_ bytes: [UInt8], limits: CBORLimits = CBORLimits()) throws(WebAuthnError) {
        guard let value = try? CBORDecoder(limits: limits).decode(bytes), let entries = value.mapEntries,
            !entries.isEmpty, let format = value[text: "fmt"]?.textValue, !format.isEmpty,
            value[text: "attStmt"]?.mapEntries != nil, let authenticatorData = value[text: "authData"]?.bytesValue
        else { throw .malformedAttestationObject }
        self.format = format
        self.authenticatorData = authenticatorData
    }
}
