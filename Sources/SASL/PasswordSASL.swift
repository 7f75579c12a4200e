import Base64Coding

/// The password mechanisms every mail door shares, one client message at a time: `PLAIN` (RFC 4616) and `LOGIN` (the
/// user name, then the password, each asked for), for IMAP's `AUTHENTICATE`, POP3's `AUTH` and SMTP's `AUTH`
/// (RFC 4954). It only decodes: the credentials go to whoever signs in, and each protocol turns the outcome into its
/// own reply.
///
/// `PLAIN`'s message is `authzid NUL authcid NUL passwd`, each UTF-8; the authentication identity and the password are
/// at least one character and hold no NUL, and the authorization identity is empty or the same user (acting as
/// another user is not offered). A message outside that is ``Step/malformed``, as one that is not UTF-8 is.
public struct PasswordSASL: Sendable {
    /// The mechanisms, as each protocol offers them.
    public static let mechanisms = ["PLAIN", "LOGIN"]

    /// What one client message came to.
    public enum Step: Sendable, Equatable {
        /// Send this challenge and wait for the next message.
        case challenge(SASLMessage)
        /// The exchange is complete: check these.
        case credentials(username: String, password: String)
        /// Not base64, or not a message of the mechanism: a failed sign-in.
        case malformed
        /// `PLAIN` named another user to act as.
        case otherAuthorization
        /// A mechanism this exchange does not run.
        case unsupported
    }

    /// `LOGIN`'s challenges, as sent: `Username:` and `Password:`.
    static let usernamePrompt = SASLMessage(base64: Base64.encode(Array("Username:".utf8)))
    static let passwordPrompt = SASLMessage(base64: Base64.encode(Array("Password:".utf8)))

    /// The user name a `LOGIN` gave, while it waits for the password.
    private var loginUser: String?

    public init() {}

    /// The outcome of one client message; `step.isFirst` starts the mechanism afresh.
    public mutating func step(_ step: SASLStep) -> Step {
        guard let bytes = step.response.base64.isEmpty ? [] : Base64.decode(step.response.base64) else {
            return .malformed
        }
        switch step.mechanism {
        case "PLAIN":
            if step.isFirst && bytes.isEmpty { return .challenge(SASLMessage(base64: "")) }
            return Self.plain(bytes)
        case "LOGIN":
            if step.isFirst { loginUser = nil }
            guard let user = loginUser else {
                if bytes.isEmpty && step.isFirst { return .challenge(Self.usernamePrompt) }
                guard let user = Self.text(bytes) else { return .malformed }
                loginUser = user
                return .challenge(Self.passwordPrompt)
            }
            loginUser = nil
            guard let password = Self.text(bytes) else { return .malformed }
            return .credentials(username: user, password: password)
        default:
            return .unsupported
        }
    }

    /// RFC 4616's message: three fields, the last two not empty, the first empty or the second.
    static func plain(_ bytes: [UInt8]) -> Step {
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: false)
        guard fields.count == 3, !fields[1].isEmpty, !fields[2].isEmpty,
            let authorization = text(fields[0]), let user = text(fields[1]), let password = text(fields[2])
        else { return .malformed }
        guard authorization.isEmpty || authorization == user else { return .otherAuthorization }
        return .credentials(username: user, password: password)
    }

    /// `bytes` as UTF-8 text; nil when they are not UTF-8.
    private static func text(_ bytes: some Collection<UInt8>) -> String? {
        String(validating: bytes, as: UTF8.self)
    }
}
