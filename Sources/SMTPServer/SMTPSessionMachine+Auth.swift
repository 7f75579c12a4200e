import ClientAddress
import SASL
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
        guard PasswordSASL.mechanisms.contains(mechanism) else { return reply(.unknownMechanism) }
        var response = SASLMessage(base64: "")
        if let initialResponse {
            guard let message = SASLMessage(line: Array(initialResponse.utf8)) else { return reply(.badBase64) }
            response = message
        }
        authenticationStep(SASLStep(mechanism: mechanism, response: response, isFirst: true), into: &actions)
    }

    /// The client's line during an exchange: `*` cancels (RFC 4954 section 4), anything else is a base64 answer.
    mutating func continueAuthentication(_ line: ArraySlice<UInt8>, into actions: inout [ConnectionAction]) {
        guard let mechanism = authMechanism else { return }
        authMechanism = nil
        if line.elementsEqual([UInt8(ascii: "*")]) { return reply(.authCancelled) }
        guard let response = SASLMessage(line: line) else { return reply(.badBase64) }
        authenticationStep(SASLStep(mechanism: mechanism, response: response, isFirst: false), into: &actions)
    }

    /// One message through the decoder IMAP and POP3 share: a challenge waits for the next line, credentials go to
    /// the sink, anything else is a failed attempt.
    private mutating func authenticationStep(_ step: SASLStep, into actions: inout [ConnectionAction]) {
        switch sasl.step(step) {
        case .challenge(let message):
            authMechanism = step.mechanism
            reply(.challenge(message.base64))
        case .credentials(let username, let password):
            pending = .authentication
            actions.append(.perform(Job(.authenticate(username: username, password: password))))
        case .malformed, .otherAuthorization:
            authenticationFailed()
        case .unsupported:
            reply(.unknownMechanism)
        }
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
}
