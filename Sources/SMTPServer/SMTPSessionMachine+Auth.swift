import ClientAddress
import SASL
import SocketServer

/// `AUTH PLAIN` and `AUTH LOGIN` (RFC 4954, 4616) on a listener that requires authentication, and `XOAUTH2` and
/// `OAUTHBEARER` (RFC 7628) on a submission listener: the session collects the credentials, the sink checks them (a
/// job, off the loop), and only then does `MAIL` work.
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
        // A submission listener takes nothing but AUTH and then mail, so before TLS it says what to do first (RFC
        // 3207 §4's `530 5.7.0`); the sandbox answers RFC 4954's `538 5.7.11`, as it always has.
        guard mayAuthenticateNow else {
            return reply(shared.configuration.submission ? .startTLSFirst : .encryptionRequired)
        }
        guard shared.mechanisms.contains(mechanism) else { return reply(.unknownMechanism) }
        var response = SASLMessage(base64: "")
        if let initialResponse {
            guard let message = SASLMessage(line: Array(initialResponse.utf8)) else { return reply(.badBase64) }
            response = message
        }
        authenticationStep(SASLStep(mechanism: mechanism, response: response, isFirst: true), into: &actions)
    }

    /// The client's line during an exchange: `*` cancels (RFC 4954 section 4), anything else is a base64 answer. After
    /// a refused token's error challenge, whatever the client answers (RFC 7628 §3.2.3: `AQ==`; XOAUTH2 clients: an
    /// empty line) ends the exchange as a failed attempt.
    mutating func continueAuthentication(_ line: ArraySlice<UInt8>, into actions: inout [ConnectionAction]) {
        guard let mechanism = authMechanism else { return }
        authMechanism = nil
        if bearerRefusalSent {
            bearerRefusalSent = false
            return authenticationFailed()
        }
        if line.elementsEqual([UInt8(ascii: "*")]) { return reply(.authCancelled) }
        guard let response = SASLMessage(line: line) else { return reply(.badBase64) }
        authenticationStep(SASLStep(mechanism: mechanism, response: response, isFirst: false), into: &actions)
    }

    /// One message through the decoders IMAP and POP3 share: a challenge waits for the next line, credentials go to
    /// the sink, anything else is a failed attempt.
    private mutating func authenticationStep(_ step: SASLStep, into actions: inout [ConnectionAction]) {
        if let bearer = BearerSASL.step(step) {
            switch bearer {
            case .challenge(let message):
                authMechanism = step.mechanism
                reply(.challenge(message.base64))
            case .bearer(let bearer):
                pending = .authentication
                actions.append(
                    .perform(Job(.signIn(.bearer(username: bearer.user, token: bearer.token), client: peer))))
            case .malformed:
                authenticationFailed()
            case .notBase64:
                reply(.badBase64)
            }
            return
        }
        switch sasl.step(step) {
        case .challenge(let message):
            authMechanism = step.mechanism
            reply(.challenge(message.base64))
        case .credentials(let username, let password) where shared.configuration.submission:
            pending = .authentication
            actions.append(.perform(Job(.signIn(.password(username: username, password: password), client: peer))))
        case .credentials(let username, let password):
            pending = .authentication
            actions.append(.perform(Job(.authenticate(username: username, password: password))))
        case .malformed, .otherAuthorization:
            authenticationFailed()
        case .unsupported:
            reply(.unknownMechanism)
        }
    }

    /// A submission listener's sign-in came back: `235`, `535`, the token's error challenge, or `454` to try later.
    mutating func signedIn(_ outcome: SMTPSignInOutcome) {
        switch outcome {
        case .signedIn(let made):
            signIn = made
            authenticatedAs = made.identity
            reply(.authenticated)
        case .refused:
            authenticationFailed()
        case .tokenRefused(let challenge):
            // RFC 7628 §3.2.2: the error as a challenge; the client's answer to it ends the exchange (535).
            authMechanism = "OAUTHBEARER"
            bearerRefusalSent = true
            reply(.challenge(challenge.base64))
        case .unavailable:
            reply(.temporaryAuthenticationFailure)
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
