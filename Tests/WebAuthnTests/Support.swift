import AuthCrypto
import WebAuthn

/// base64url (the vectors' encoding), trapping on a bad literal.
func b64(_ text: String) -> [UInt8] { Base64URL.decode(text)! }

/// The UTF-8 bytes of `text`.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A software authenticator with an Ed25519 key, for what no published example holds: it writes client data,
/// authenticator data, attestation objects and signed assertions to order.
struct SoftwareAuthenticator {
    let key: Ed25519PrivateKey
    let credentialID: [UInt8] = Array(1...16)
    var rpID = "example.com"

    init() throws {
        key = try Ed25519PrivateKey(seed: [UInt8](repeating: 0x5a, count: 32))
    }

    /// The COSE OKP key: {1: 1, 3: -8, -1: 6, -2: x}.
    var coseKey: [UInt8] {
        [0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20] + key.publicKey.rawRepresentation
    }

    static func clientData(
        type: String, challenge: [UInt8], origin: String = "https://example.com", extra: String = ""
    ) -> [UInt8] {
        utf8(
            #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)"\#(extra)}"#)
    }

    func authenticatorData(flags: UInt8, signCount: UInt32, attested: Bool = false, rpID: String? = nil) -> [UInt8] {
        var bytes = SHA256.hash(rpID ?? self.rpID) + [flags]
        bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: signCount >> $0) }
        if attested {
            bytes += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID + coseKey
        }
        return bytes
    }

    /// An attestation object {"fmt": "none", "attStmt": {}, "authData": authData}.
    static func attestationObject(_ authData: [UInt8], format: String = "none") -> [UInt8] {
        var bytes: [UInt8] = [0xa3, 0x63] + utf8("fmt") + [0x60 | UInt8(format.utf8.count)] + utf8(format)
        bytes += [0x67] + utf8("attStmt") + [0xa0] + [0x68] + utf8("authData")
        bytes +=
            authData.count < 256
            ? [0x58, UInt8(authData.count)] : [0x59, UInt8(authData.count >> 8), UInt8(authData.count & 0xff)]
        return bytes + authData
    }

    func sign(authData: [UInt8], clientData: [UInt8]) throws -> [UInt8] {
        try key.sign(authData + SHA256.hash(clientData))
    }

    var stored: StoredCredential {
        StoredCredential(credentialID: credentialID, publicKey: coseKey, algorithm: .eddsa, signCount: 0)
    }
}
