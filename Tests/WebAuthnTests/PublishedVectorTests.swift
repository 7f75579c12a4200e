import AuthCrypto
import Testing
import WebAuthn

/// The published example ceremonies (py_webauthn's test suite), verified and then altered one check at a time.
@Suite("WebAuthn: published registrations and assertions")
struct PublishedVectorTests {
    static func party(_ rpID: String, _ origins: [String]) -> RelyingParty { RelyingParty(id: rpID, origins: origins) }

    @Test(
        "each published registration verifies to its credential, key, counter and format",
        arguments: PublishedVectors.registrations)
    func registration(vector: RegistrationVector) throws {
        let result = try Self.party(vector.rpID, vector.origins).verifyRegistration(
            credentialID: b64(vector.rawID), clientDataJSON: b64(vector.clientDataJSON),
            attestationObject: b64(vector.attestationObject), challenge: b64(vector.challenge),
            userVerification: vector.userVerified ? .required : .notRequired)
        #expect(result.credentialID == b64(vector.rawID))
        #expect(result.publicKey == b64(vector.publicKey))
        #expect(result.algorithm == vector.algorithm)
        #expect(result.signCount == vector.signCount)
        #expect(Hex.encode(result.aaguid) == vector.aaguid)
        #expect(result.attestationFormat == vector.format)
        #expect(result.userVerified == vector.userVerified)
        #expect(!result.backupEligible && !result.backupState)
    }

    @Test("a registration made without user verification is refused where it is required")
    func registrationWithoutVerification() throws {
        let vector = try #require(PublishedVectors.registrations.first { !$0.userVerified })
        #expect(throws: WebAuthnError.userNotVerified) {
            try Self.party(vector.rpID, vector.origins).verifyRegistration(
                credentialID: b64(vector.rawID), clientDataJSON: b64(vector.clientDataJSON),
                attestationObject: b64(vector.attestationObject), challenge: b64(vector.challenge))
        }
    }

    @Test("each published assertion verifies and gives the new counter", arguments: PublishedVectors.assertions)
    func assertion(vector: AssertionVector) throws {
        let result = try Self.party(vector.rpID, vector.origins).verifyAssertion(
            credentialID: b64(vector.rawID), clientDataJSON: b64(vector.clientDataJSON),
            authenticatorData: b64(vector.authenticatorData), signature: b64(vector.signature),
            challenge: b64(vector.challenge), credential: Self.stored(vector),
            userVerification: vector.userVerified ? .required : .notRequired)
        #expect(result.signCount == vector.signCount)
        #expect(result.userVerified == vector.userVerified)
        #expect(result.credentialID == b64(vector.rawID))
    }

    static func stored(_ vector: AssertionVector, signCount: UInt32? = nil) -> StoredCredential {
        StoredCredential(
            credentialID: b64(vector.rawID), publicKey: b64(vector.publicKey), algorithm: vector.algorithm,
            signCount: signCount ?? vector.storedSignCount)
    }

    /// Verifies `vector` with one thing changed.
    static func verify(
        _ vector: AssertionVector, rpID: String? = nil, origins: [String]? = nil, challenge: [UInt8]? = nil,
        clientDataJSON: [UInt8]? = nil, authenticatorData: [UInt8]? = nil, signature: [UInt8]? = nil,
        credential: StoredCredential? = nil, userVerification: RelyingParty.UserVerification = .notRequired
    ) throws(WebAuthnError) -> VerifiedAssertion {
        try party(rpID ?? vector.rpID, origins ?? vector.origins).verifyAssertion(
            credentialID: b64(vector.rawID), clientDataJSON: clientDataJSON ?? b64(vector.clientDataJSON),
            authenticatorData: authenticatorData ?? b64(vector.authenticatorData),
            signature: signature ?? b64(vector.signature), challenge: challenge ?? b64(vector.challenge),
            credential: credential ?? stored(vector), userVerification: userVerification)
    }

    var es256: AssertionVector { PublishedVectors.assertions[0] }
    var rs256: AssertionVector { PublishedVectors.assertions[1] }

    @Test("refused: an origin outside the allowed set")
    func wrongOrigin() {
        #expect(throws: WebAuthnError.originNotAllowed) {
            try Self.verify(es256, origins: ["https://localhost:5000", "http://localhost:5001"])
        }
    }

    @Test("refused: another RP ID (its hash is not the authenticator data's)")
    func wrongRPID() {
        #expect(throws: WebAuthnError.relyingPartyMismatch) { try Self.verify(es256, rpID: "example.com") }
    }

    @Test("refused: the UV flag clear where verification is required (published vector)")
    func userNotVerified() throws {
        let vector = PublishedVectors.notVerified[0]
        #expect(throws: WebAuthnError.userNotVerified) { try Self.verify(vector, userVerification: .required) }
        // The same assertion is otherwise valid.
        #expect(try Self.verify(vector).signCount == vector.signCount)
    }

    @Test("refused: another challenge than the ceremony's, one bit or one byte off")
    func wrongChallenge() {
        var challenge = b64(es256.challenge)
        challenge[0] ^= 1
        #expect(throws: WebAuthnError.challengeMismatch) { try Self.verify(es256, challenge: challenge) }
        #expect(throws: WebAuthnError.challengeMismatch) {
            try Self.verify(es256, challenge: Array(b64(es256.challenge).dropLast()))
        }
    }

    @Test("refused: a registration's client data in a sign-in")
    func wrongType() {
        let registration = PublishedVectors.registrations[0]
        #expect(throws: WebAuthnError.wrongCeremonyType) {
            try Self.verify(es256, clientDataJSON: b64(registration.clientDataJSON))
        }
    }

    @Test("refused: a signature by another credential's key (published vector)")
    func wrongKey() {
        #expect(throws: WebAuthnError.badSignature) {
            try Self.verify(PublishedVectors.wrongKey[0], userVerification: .required)
        }
    }

    @Test("refused: a signature with one bit changed, or over other authenticator data, or empty")
    func badSignature() {
        for vector in [es256, rs256] {
            var signature = b64(vector.signature)
            signature[signature.count - 1] ^= 1
            #expect(throws: WebAuthnError.badSignature) { try Self.verify(vector, signature: signature) }
            #expect(throws: WebAuthnError.badSignature) { try Self.verify(vector, signature: []) }
            var data = b64(vector.authenticatorData)
            data[36] &+= 1
            #expect(throws: WebAuthnError.badSignature) { try Self.verify(vector, authenticatorData: data) }
        }
    }

    @Test("refused: a stored algorithm that differs from the stored key's")
    func algorithmMismatch() {
        var credential = Self.stored(es256)
        credential.algorithm = .rs256
        #expect(throws: WebAuthnError.algorithmMismatch) { try Self.verify(es256, credential: credential) }
    }

    @Test("refused: a counter that does not go up from the stored one is a possible clone")
    func counterRollback() throws {
        // Stored 77, received 78 verifies; stored 78 or 100 with 78 received is refused, after the signature.
        #expect(try Self.verify(es256).signCount == 78)
        #expect(throws: WebAuthnError.possiblyCloned(stored: 78, received: 78)) {
            try Self.verify(es256, credential: Self.stored(es256, signCount: 78))
        }
        #expect(throws: WebAuthnError.possiblyCloned(stored: 100, received: 78)) {
            try Self.verify(es256, credential: Self.stored(es256, signCount: 100))
        }
    }

    @Test("refused: a credential id other than the stored credential's")
    func unknownCredential() {
        var credential = Self.stored(es256)
        credential.credentialID[0] ^= 1
        #expect(throws: WebAuthnError.credentialMismatch) { try Self.verify(es256, credential: credential) }
    }

    @Test("refused: every truncation of a published attestation object and authenticator data")
    func truncations() {
        let vector = PublishedVectors.registrations[0]
        let object = b64(vector.attestationObject)
        for length in 0..<object.count {
            #expect(throws: WebAuthnError.malformedAttestationObject) {
                try Self.party(vector.rpID, vector.origins).verifyRegistration(
                    credentialID: b64(vector.rawID), clientDataJSON: b64(vector.clientDataJSON),
                    attestationObject: Array(object[0..<length]), challenge: b64(vector.challenge))
            }
        }
        let data = b64(es256.authenticatorData)
        for length in 0..<data.count {
            #expect(throws: WebAuthnError.malformedAuthenticatorData) {
                try Self.verify(es256, authenticatorData: Array(data[0..<length]))
            }
        }
    }
}
