import AuthCrypto
import Testing
import WebAuthn

/// hex (the spec vectors' encoding), trapping on a bad literal.
func hex(_ text: String) -> [UInt8] { Hex.decode(text)! }

/// The W3C WebAuthn Level 3 test vectors (§16): each registration verifies to the spec's credential, the key rebuilt
/// from the spec's private key, its counter and format; each authentication verifies against the key the registration
/// gave; a changed signature byte is refused; the vectors Postern does not support are refused for their reason.
@Suite("WebAuthn: the specification's test vectors")
struct SpecVectorTests {
    static let party = RelyingParty(id: SpecVectors.rpID, origins: [SpecVectors.origin])

    static func register(
        _ bytes: SpecCeremonies, userVerification: RelyingParty.UserVerification = .notRequired
    ) throws(WebAuthnError) -> VerifiedRegistration {
        try party.verifyRegistration(
            credentialID: hex(bytes.credentialID), clientDataJSON: hex(bytes.registrationClientDataJSON),
            attestationObject: hex(bytes.attestationObject), challenge: hex(bytes.registrationChallenge),
            userVerification: userVerification)
    }

    static func register(_ vector: SpecVector) throws(WebAuthnError) -> VerifiedRegistration {
        try register(vector.ceremonies)
    }

    /// The credential as a relying party stores it after `registration`.
    static func stored(_ registration: VerifiedRegistration) -> StoredCredential {
        StoredCredential(
            credentialID: registration.credentialID, publicKey: registration.publicKey,
            algorithm: registration.algorithm, signCount: registration.signCount)
    }

    static func authenticate(
        _ bytes: SpecCeremonies, against credential: StoredCredential, signature: [UInt8]? = nil,
        userVerification: RelyingParty.UserVerification = .notRequired
    ) throws(WebAuthnError) -> VerifiedAssertion {
        try party.verifyAssertion(
            credentialID: hex(bytes.credentialID), clientDataJSON: hex(bytes.authenticationClientDataJSON),
            authenticatorData: hex(bytes.authenticatorData), signature: signature ?? hex(bytes.signature),
            challenge: hex(bytes.authenticationChallenge), credential: credential, userVerification: userVerification)
    }

    static func authenticate(
        _ vector: SpecVector, with registration: VerifiedRegistration, signature: [UInt8]? = nil,
        userVerification: RelyingParty.UserVerification = .notRequired
    ) throws(WebAuthnError) -> VerifiedAssertion {
        try authenticate(
            vector.ceremonies, against: stored(registration), signature: signature, userVerification: userVerification)
    }

    @Test(
        "each spec registration verifies to its credential id, public key, counter, format and flags",
        arguments: SpecVectors.accepted)
    func registration(vector: SpecVector) throws {
        let bytes = vector.ceremonies
        let result = try Self.register(vector)
        #expect(result.credentialID == hex(bytes.credentialID))
        #expect(result.publicKey == hex(vector.publicKey))
        #expect(result.algorithm == vector.algorithm)
        #expect(result.signCount == vector.signCount)
        #expect(Hex.encode(result.aaguid) == vector.aaguid)
        #expect(result.attestationFormat == vector.format)
        #expect(result.userVerified == vector.registrationFlags.uv)
        #expect(result.backupEligible == vector.registrationFlags.be)
        #expect(result.backupState == vector.registrationFlags.bs)
        if !vector.registrationFlags.uv {
            #expect(throws: WebAuthnError.userNotVerified) { try Self.register(bytes, userVerification: .required) }
        }
    }

    @Test("each spec authentication verifies against the key its registration gave", arguments: SpecVectors.accepted)
    func authentication(vector: SpecVector) throws {
        let bytes = vector.ceremonies
        let registration = try Self.register(vector)
        let result = try Self.authenticate(vector, with: registration)
        #expect(result.credentialID == hex(bytes.credentialID))
        #expect(result.signCount == vector.assertionSignCount)
        #expect(result.userVerified == vector.assertionFlags.uv)
        #expect(result.backupEligible == vector.assertionFlags.be)
        #expect(result.backupState == vector.assertionFlags.bs)
        if !vector.assertionFlags.uv {
            #expect(throws: WebAuthnError.userNotVerified) {
                try Self.authenticate(vector, with: registration, userVerification: .required)
            }
        }
    }

    @Test(
        "refused: a spec signature with its first, a middle or its last byte changed", arguments: SpecVectors.accepted)
    func flippedSignature(vector: SpecVector) throws {
        let bytes = vector.ceremonies
        let registration = try Self.register(vector)
        let signature = hex(bytes.signature)
        for index in [0, signature.count / 2, signature.count - 1] {
            var changed = signature
            changed[index] ^= 0x01
            #expect(throws: WebAuthnError.badSignature) {
                try Self.authenticate(vector, with: registration, signature: changed)
            }
        }
    }

    @Test("refused: a spec assertion checked against another spec credential's key of the same algorithm")
    func anotherCredentialsKey() throws {
        let vectors = SpecVectors.accepted.filter { $0.algorithm == .es256 }
        for (vector, other) in zip(vectors, vectors.dropFirst() + vectors.prefix(1)) {
            let bytes = vector.ceremonies
            let mine = try Self.register(vector)
            let theirs = try Self.register(other)
            let stored = StoredCredential(
                credentialID: mine.credentialID, publicKey: theirs.publicKey, algorithm: theirs.algorithm, signCount: 0)
            #expect(throws: WebAuthnError.badSignature) { try Self.authenticate(bytes, against: stored) }
        }
    }

    @Test(
        "refused: the spec vectors Postern does not support (cross-origin, ES384, ES512, Ed448), both ceremonies",
        arguments: SpecVectors.refused)
    func refused(vector: RefusedSpecVector) throws {
        let bytes = vector.ceremonies
        #expect(throws: vector.refusal) { try Self.register(bytes) }
        // The authentication, as if the credential had been stored with the key its registration carries.
        let stored = StoredCredential(
            credentialID: hex(bytes.credentialID), publicKey: hex(vector.attestedPublicKey), algorithm: .es256,
            signCount: 0)
        #expect(throws: vector.refusal) { try Self.authenticate(bytes, against: stored) }
    }
}
