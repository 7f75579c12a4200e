import Base64Coding
import IMAP

/// The password mechanisms IMAP's `AUTHENTICATE` and POP3's `AUTH` share, one step at a time: `PLAIN` (RFC 4616:
/// `authzid NUL authcid NUL password`, the authorization identity empty or the same user) and `LOGIN` (the user name,
/// then the password, each asked for). It only decodes: the credentials go to the one sign-in port
/// (``IMAPSignIn``), whichever protocol asked.
struct PasswordSASL: Sendable {
    /// What one client message came to.
    enum Step: Sendable, Equatable {
        /// Send this challenge and wait for the next message.
        case challenge(SASLMessage)
        /// The exchange is complete: check these.
        case credentials(username: String, password: String)
        /// Not base64 of the right shape: a failed sign-in.
        case malformed
        /// `PLAIN` named another user to act as.
        case otherAuthorization
        /// A mechanism this exchange does not run.
        case unsupported
    }

    /// The user name an `AUTHENTICATE LOGIN` gave, while it waits for the password.
    private var loginUser: String?

    init() {}

    mutating func step(_ step: SASLStep) -> Step {
        guard let bytes = step.response.base64.isEmpty ? [] : Base64.decode(step.response.base64) else {
            return .malformed
        }
        switch step.mechanism {
        case "PLAIN":
            if step.isFirst && bytes.isEmpty { return .challenge(SASLMessage(base64: "")) }
            let fields = bytes.split(separator: 0, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return .malformed }
            let (authorization, user) = (String(decoding: fields[0], as: UTF8.self), String(decoding: fields[1], as: UTF8.self))
            guard authorization.isEmpty || authorization == user else { return .otherAuthorization }
            return .credentials(username: user, password: String(decoding: fields[2], as: UTF8.self))
        case "LOGIN":
            if step.isFirst { loginUser = nil }
            guard let user = loginUser else {
                if bytes.isEmpty && step.isFirst { return .challenge(SASLMessage(base64: Base64.encode(Array("Username:".utf8)))) }
                loginUser = String(decoding: bytes, as: UTF8.self)
                return .challenge(SASLMessage(base64: Base64.encode(Array("Password:".utf8))))
            }
            loginUser = nil
            return .credentials(username: user, password: String(decoding: bytes, as: UTF8.self))
        default:
            return .unsupported
        }
    }
}
