import AuthCrypto
import ServerKit

/// What a client proves an account with. Mail.td's v1 protocol sends the `password`; its v2 protocol
/// (SDK 2.x) sends `auth_key`, which the client derived from the password itself
/// (``MailboxAuthKey/derive(address:password:parameters:)``), so the password never leaves the client. A request
/// sends one of the two.
package enum MailboxCredential: Sendable {
    case password(String)
    /// The 32 bytes of a 64-hex-character `auth_key`.
    case authKey([UInt8])

    /// Reads the body's credential: `password` or `auth_key`, never both; nil when neither is present.
    /// - Throws: `.invalidAuthKey` when `auth_key` is not 64 hex characters, `.invalidRequest` when `password`
    ///   is not a string (null included: Mail.td's SDKs leave out what they do not send) or both are sent.
    package static func read(_ body: RequestBody) throws(MailboxError) -> MailboxCredential? {
        switch (body["password"], body["auth_key"]) {
        case (nil, nil):
            return nil
        case (.string(let password)?, nil):
            return .password(password)
        case (nil, .string(let text)?) where text.utf8.count == 2 * MailboxAuthKey.length:
            guard let bytes = Hex.decode(text) else { throw .invalidAuthKey }
            return .authKey(bytes)
        case (nil, _?):
            throw .invalidAuthKey
        default:
            throw .invalidRequest
        }
    }

    /// Reads a credential for a new account or a reset: a password must pass ``PasswordPolicy``; an
    /// absent credential is `.passwordTooShort`, as Mail.td answers an empty password.
    package static func readNew(_ body: RequestBody) throws(MailboxError) -> MailboxCredential {
        let credential = try read(body) ?? .password("")
        if case .password(let password) = credential { try PasswordPolicy.validateNew(password) }
        return credential
    }
}
