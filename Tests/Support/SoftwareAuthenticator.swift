import AuthCrypto
import WebAuthn

/// A software authenticator with an Ed25519 key, for what no published example holds: it writes client data,
/// authenticator data, attestation objects and signed assertions to order.
public struct SoftwareAuthenticator {
    /// The credential's private key.
    public let key: Ed25519PrivateKey
    /// The one credential's id.
    public let credentialID: [UInt8]
    /// The RP ID whose hash the authenticator data carries.
    public var rpID = "example.com"

    /// An authenticator whose key comes from `seed` (one byte repeated) and whose one credential id is `credentialID`.
    public init(seed: UInt8 = 0x5a, credentialID: [UInt8] = Array(1...16)) throws {
        key = try Ed25519PrivateKey(seed: [UInt8](repeating: seed, count: 32))
        self.credentialID = credentialID
    }

    /// The COSE OKP key: {1: 1, 3: -8, -1: 6, -2: x}.
    public var coseKey: [UInt8] {
        [0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20] + key.publicKey.rawRepresentation
    }

    /// `clientDataJSON` of `type` over `challenge` from `origin`, with `extra` members (`,"crossOrigin":true`).
    public static func clientData(
        type: String, challenge: [UInt8], origin: String = "https://example.com", extra: String = ""
    ) -> [UInt8] {
        utf8Bytes(
            #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)"\#(extra)}"#)
    }

    /// Authenticator data with `flags` and `signCount`, the attested credential after it when `attested`.
    public func authenticatorData(
        flags: UInt8, signCount: UInt32, attested: Bool = false, rpID: String? = nil
    ) -> [UInt8] {
        var bytes = SHA256.hash(rpID ?? self.rpID) + [flags]
        bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: signCount >> $0) }
        if attested {
            bytes += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID + coseKey
        }
        return bytes
    }

    /// An attestation object {"fmt": "none", "attStmt": {}, "authData": authData}.
    public static func attestationObject(_ authData: [UInt8], format: String = "none") -> [UInt8] {
        var bytes: [UInt8] = [0xa3, 0x63] + utf8Bytes("fmt") + [0x60 | UInt8(format.utf8.count)] + utf8Bytes(format)
        bytes += [0x67] + utf8Bytes("attStmt") + [0xa0] + [0x68] + utf8Bytes("authData")
        bytes +=
            authData.count < 256
            ? [0x58, UInt8(authData.count)] : [0x59, UInt8(authData.count >> 8), UInt8(authData.count & 0xff)]
        return bytes + authData
    }

    /// The assertion signature over `authData` and the hash of `clientData`.
    public func sign(authData: [UInt8], clientData: [UInt8]) throws -> [UInt8] {
        try key.sign(authData + SHA256.hash(clientData))
    }

    /// A registration of this authenticator's credential, verified by `party` (whose ID must be ``rpID`` and whose
    /// origins must hold `https://example.com`), with `flags` (UP, UV and AT by default).
    public func register(
        with party: RelyingParty, flags: UInt8 = 0x45, signCount: UInt32 = 0
    ) throws -> VerifiedRegistration {
        let challenge = SecureRandom.bytes(32)
        return try party.verifyRegistration(
            credentialID: credentialID,
            clientDataJSON: Self.clientData(type: "webauthn.create", challenge: challenge),
            attestationObject: Self.attestationObject(
                authenticatorData(flags: flags, signCount: signCount, attested: true)),
            challenge: challenge)
    }

    /// The credential as stored after a registration with counter 0.
    public var stored: StoredCredential {
        StoredCredential(credentialID: credentialID, publicKey: coseKey, algorithm: .eddsa, signCount: 0)
    }
}

/// The UTF-8 bytes of `text`.
private func utf8Bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
