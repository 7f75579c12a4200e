import AuthCrypto
import CBOR
import PosternTestSupport
import Testing
import WebAuthn

/// Ceremonies a software authenticator writes to order: the checks no published example reaches.
@Suite("WebAuthn: ceremonies from a software authenticator")
struct SoftwareAuthenticatorTests {
    let party = RelyingParty(id: "example.com", origins: ["https://example.com", "https://auth.example.com"])
    let challenge: [UInt8] = Array(100..<132)

    @Test("an EdDSA registration, then sign-ins whose counter goes up, and one whose counter goes back")
    func registerAndSignIn() throws {
        let authenticator = try SoftwareAuthenticator()
        let data = authenticator.authenticatorData(flags: 0x45 | 0x18, signCount: 0, attested: true)
        let registered = try party.verifyRegistration(
            credentialID: authenticator.credentialID,
            clientDataJSON: SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: challenge),
            attestationObject: SoftwareAuthenticator.attestationObject(data), challenge: challenge)
        #expect(registered.algorithm == .eddsa && registered.backupEligible && registered.backupState)
        #expect(registered.publicKey == authenticator.coseKey && registered.attestationFormat == "none")
        var stored = StoredCredential(
            credentialID: registered.credentialID, publicKey: registered.publicKey, algorithm: registered.algorithm,
            signCount: registered.signCount)
        for count: UInt32 in [1, 2, 10] {
            let result = try signIn(authenticator, stored: stored, signCount: count)
            #expect(result.signCount == count)
            stored.signCount = result.signCount
        }
        #expect(throws: WebAuthnError.possiblyCloned(stored: 10, received: 9)) {
            try signIn(authenticator, stored: stored, signCount: 9)
        }
        #expect(throws: WebAuthnError.possiblyCloned(stored: 10, received: 0)) {
            try signIn(authenticator, stored: stored, signCount: 0)
        }
        // An authenticator that keeps no counter (always 0) is not a clone.
        stored.signCount = 0
        #expect(try signIn(authenticator, stored: stored, signCount: 0).signCount == 0)
    }

    func signIn(
        _ authenticator: SoftwareAuthenticator, stored: StoredCredential, signCount: UInt32, flags: UInt8 = 0x05,
        extra: String = "", origin: String = "https://auth.example.com"
    ) throws -> VerifiedAssertion {
        let data = authenticator.authenticatorData(flags: flags, signCount: signCount)
        let client = SoftwareAuthenticator.clientData(
            type: "webauthn.get", challenge: challenge, origin: origin, extra: extra)
        return try party.verifyAssertion(
            credentialID: authenticator.credentialID, clientDataJSON: client, authenticatorData: data,
            signature: try authenticator.sign(authData: data, clientData: client), challenge: challenge,
            credential: stored)
    }

    @Test("refused, though signed: UP clear, UV clear, BS without BE, crossOrigin true, another origin")
    func flagsAndClientData() throws {
        let authenticator = try SoftwareAuthenticator()
        let stored = authenticator.stored
        #expect(throws: WebAuthnError.userNotPresent) {
            try signIn(authenticator, stored: stored, signCount: 1, flags: 0x04)
        }
        #expect(throws: WebAuthnError.userNotVerified) {
            try signIn(authenticator, stored: stored, signCount: 1, flags: 0x01)
        }
        #expect(throws: WebAuthnError.invalidBackupFlags) {
            try signIn(authenticator, stored: stored, signCount: 1, flags: 0x15)
        }
        #expect(throws: WebAuthnError.crossOrigin) {
            try signIn(authenticator, stored: stored, signCount: 1, extra: #","crossOrigin":true"#)
        }
        #expect(throws: WebAuthnError.malformedClientData) {
            try signIn(authenticator, stored: stored, signCount: 1, extra: #","crossOrigin":"no""#)
        }
        #expect(throws: WebAuthnError.originNotAllowed) {
            try signIn(authenticator, stored: stored, signCount: 1, origin: "https://evil.example")
        }
        #expect(throws: WebAuthnError.originNotAllowed) {
            try signIn(authenticator, stored: stored, signCount: 1, origin: "https://example.com/")
        }
        // crossOrigin false is the ordinary case.
        #expect(try signIn(authenticator, stored: stored, signCount: 1, extra: #","crossOrigin":false"#).signCount == 1)
    }

    @Test("refused: a stored credential whose algorithm is not its key's, and a COSE key whose alg is not its type's")
    func algorithms() throws {
        let authenticator = try SoftwareAuthenticator()
        var stored = authenticator.stored
        stored.algorithm = .es256
        #expect(throws: WebAuthnError.algorithmMismatch) { try signIn(authenticator, stored: stored, signCount: 1) }
        // An OKP Ed25519 key that says ES256 (-7).
        var key = authenticator.coseKey
        key[4] = 0x26
        #expect(throws: WebAuthnError.algorithmMismatch) { try CredentialPublicKey(cose: key) }
        // An unknown algorithm (-36, ES512), and a registration offered only RS256.
        key[4] = 0x38
        key.insert(0x23, at: 5)
        #expect(throws: WebAuthnError.unsupportedAlgorithm) { try CredentialPublicKey(cose: key) }
        let data = authenticator.authenticatorData(flags: 0x45, signCount: 0, attested: true)
        #expect(throws: WebAuthnError.unsupportedAlgorithm) {
            try party.verifyRegistration(
                credentialID: authenticator.credentialID,
                clientDataJSON: SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: challenge),
                attestationObject: SoftwareAuthenticator.attestationObject(data), challenge: challenge,
                algorithms: [.rs256])
        }
    }

    @Test("refused: registrations without attested data, with another credential id, or with a sign-in's type")
    func registrationRefusals() throws {
        let authenticator = try SoftwareAuthenticator()
        let create = SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
        let attested = authenticator.authenticatorData(flags: 0x45, signCount: 0, attested: true)
        #expect(throws: WebAuthnError.missingAttestedCredential) {
            try party.verifyRegistration(
                credentialID: authenticator.credentialID, clientDataJSON: create,
                attestationObject: SoftwareAuthenticator.attestationObject(
                    authenticator.authenticatorData(flags: 0x05, signCount: 0)),
                challenge: challenge)
        }
        #expect(throws: WebAuthnError.credentialMismatch) {
            try party.verifyRegistration(
                credentialID: [9, 9, 9], clientDataJSON: create,
                attestationObject: SoftwareAuthenticator.attestationObject(attested), challenge: challenge)
        }
        #expect(throws: WebAuthnError.wrongCeremonyType) {
            try party.verifyRegistration(
                credentialID: authenticator.credentialID,
                clientDataJSON: SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: challenge),
                attestationObject: SoftwareAuthenticator.attestationObject(attested), challenge: challenge)
        }
        // Attested data in a sign-in's authenticator data.
        #expect(throws: WebAuthnError.malformedAuthenticatorData) {
            let client = SoftwareAuthenticator.clientData(
                type: "webauthn.get", challenge: challenge, origin: "https://example.com")
            return try party.verifyAssertion(
                credentialID: authenticator.credentialID, clientDataJSON: client, authenticatorData: attested,
                signature: try authenticator.sign(authData: attested, clientData: client), challenge: challenge,
                credential: authenticator.stored)
        }
    }

    @Test("refused: an over-deep attestation statement, a non-canonical one, bytes after the COSE key")
    func hostileCBOR() throws {
        let authenticator = try SoftwareAuthenticator()
        let create = SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
        let data = authenticator.authenticatorData(flags: 0x45, signCount: 0, attested: true)
        let object = SoftwareAuthenticator.attestationObject(data)
        // attStmt {} replaced by {"x": [[[...17 deep...]]]}.
        let statement = Array(utf8("attStmt")) + [0xa0]
        let at = try #require(firstRange(of: statement, in: object))
        let deep = Array(utf8("attStmt")) + [0xa1, 0x61, 0x78] + [UInt8](repeating: 0x81, count: 17) + [0x00]
        let overDeep = Array(object[..<at.lowerBound]) + deep + Array(object[at.upperBound...])
        // The keys of the attestation object out of order: authData before attStmt.
        let unordered: [UInt8] =
            [0xa3, 0x63] + utf8("fmt") + [0x64] + utf8("none") + [0x68] + utf8("authData")
            + [0x58, UInt8(data.count)] + data + [0x67] + utf8("attStmt") + [0xa0]
        for bad in [overDeep, unordered, object + [0x00]] {
            #expect(throws: WebAuthnError.malformedAttestationObject) {
                try party.verifyRegistration(
                    credentialID: authenticator.credentialID, clientDataJSON: create, attestationObject: bad,
                    challenge: challenge)
            }
        }
        // Authenticator data with a byte after the COSE key (and ED clear) is refused.
        #expect(throws: WebAuthnError.malformedAuthenticatorData) {
            try party.verifyRegistration(
                credentialID: authenticator.credentialID, clientDataJSON: create,
                attestationObject: SoftwareAuthenticator.attestationObject(data + [0xa0]), challenge: challenge)
        }
    }

    func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start..<start + needle.count
        }
        return nil
    }
}
