import ClientAddress
import SocketServer

/// `AUTH PLAIN` and `AUTH LOGIN` (RFC 4954, 4616) on a listener that requires authentication: the session collects
/// the credentials, the sink checks them (a job, off the loop), and only then does `MAIL` work.
extension SMTPSessionMachine {
    /// Whether EHLO offers AUTH now: the listener requires it, and the connection is encrypted or the rule lets
    /// this client authenticate in plaintext.
    var offersAuthentication: Bool {
        shared.configuration.requiresAuthentication && authenticatedAs == nil && mayAuthenticateNow
    }

    /// TLS is on, or plaintext AUTH is allowed for this peer.
    private var mayAuthenticateNow: Bool {
        if secured { return true }
        switch shared.configuration.plaintextAuthentication {
        case .never: return false
        case .loopbackOnly: return Self.isLoopback(peer)
        }
    }

    /// `127.0.0.0/8`, `::1`, and IPv4-mapped loopback.
    static func isLoopback(_ address: String) -> Bool {
        IPAddress(address)?.isLoopback ?? false
    }

    /// `AUTH <mechanism> [initial-response]`.
    mutating func startAuthentication(
        _ mechanism: String, _ initialResponse: String?, into actions: inout [ConnectionAction]
    ) {
        guard shared.configuration.requiresAuthentication else { return reply(.notImplemented) }
        guard greeted else { return reply(.needHello) }
        guard authenticatedAs == nil else { return reply(.alreadyAuthenticated) }
        guard transaction == nil else { return reply(.authInTransaction) }
        guard mayAuthenticateNow else { return reply(.encryptionRequired) }
        switch mechanism {
        case "PLAIN":
            guard let initialResponse else {
                authExchange = .plainResponse
                return reply(.challenge(""))
            }
            answerPlain(Array(initialResponse.utf8), into: &actions)
        case "LOGIN":
            guard let initialResponse else {
                authExchange = .loginUsername
                return reply(.challenge(SMTPAuthExchange.usernamePrompt))
            }
            guard let username = SMTPAuthExchange.decode(Array(initialResponse.utf8)) else { return reply(.badBase64) }
            authExchange = .loginPassword(username: username)
            reply(.challenge(SMTPAuthExchange.passwordPrompt))
        default:
            reply(.unknownMechanism)
        }
    }

    /// The client's line during an exchange: `*` cancels (RFC 4954 section 4), anything else is a base64 answer.
    mutating func continueAuthentication(_ line: ArraySlice<UInt8>, into actions: inout [ConnectionAction]) {
        guard let exchange = authExchange else { return }
        authExchange = nil
        if line.elementsEqual([UInt8(ascii: "*")]) { return reply(.authCancelled) }
        switch exchange {
        case .plainResponse:
            answerPlain(line, into: &actions)
        case .loginUsername:
            guard let username = SMTPAuthExchange.decode(line) else { return reply(.badBase64) }
            authExchange = .loginPassword(username: username)
            reply(.challenge(SMTPAuthExchange.passwordPrompt))
        case .loginPassword(let username):
            guard let password = SMTPAuthExchange.decode(line) else { return reply(.badBase64) }
            check(username: username, password: password, into: &actions)
        }
    }

    private mutating func answerPlain(_ response: some Collection<UInt8>, into actions: inout [ConnectionAction]) {
        guard let decoded = SMTPAuthExchange.decode(response) else { return reply(.badBase64) }
        guard let (username, password) = SMTPAuthExchange.plainCredentials(decoded) else {
            return authenticationFailed()
        }
        check(username: username, password: password, into: &actions)
    }

    /// Answers `535`; at the configured number of failures, `421 4.7.0` instead, and the session ends.
    mutating func authenticationFailed() {
        authenticationFailures += 1
        if authenticationFailures >= shared.configuration.maxAuthenticationFailures {
            finish(with: .tooManyAuthenticationFailures)
        } else {
            reply(.badCredentials)
        }
    }

    /// Asks the sink; the answer comes back as `.authenticated`.
    private mutating func check(username: String, password: String, into actions: inout [ConnectionAction]) {
        pending = .authentication
        actions.append(.perform(Job(.authenticate(username: username, password: password))))
    }
}
