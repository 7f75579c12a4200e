import MailDoor
import SASL

/// The commands the session answers itself, and the hand-over of the rest to the driver.
extension IMAPSession {
    mutating func run(_ command: IMAPCommand, _ actions: inout [Action]) {
        let tag = command.tag
        guard command.kind.allowedStates.contains(state) else {
            return tagged(tag, IMAPStatusResponse(.bad, IMAPCommandError.wrongState.text), &actions)
        }
        switch command.kind {
        case .capability:
            untagged(.capability(capabilities), &actions)
            tagged(tag, IMAPStatusResponse(.ok, "CAPABILITY completed"), &actions)
        case .id:
            untagged(.id([IMAPIDField("name", "Postern")]), &actions)
            tagged(tag, IMAPStatusResponse(.ok, "ID completed"), &actions)
        case .logout:
            untagged(.condition(IMAPStatusResponse(.bye, "Logging out")), &actions)
            tagged(tag, IMAPStatusResponse(.ok, "LOGOUT completed"), &actions)
            actions.append(.closeConnection)
            state = .logout
            connectionClosed()
        case .noop where state == .notAuthenticated:
            tagged(tag, IMAPStatusResponse(.ok, "NOOP completed"), &actions)
        case .startTLS:
            startTLS(tag, &actions)
        case .login(let username, let password):
            guard plaintextAllowedForSignIn(tag, &actions) else { return }
            phase = .awaitingDriver(tag: tag, .login)
            actions.append(.perform(.login(username: username, password: password)))
        case .authenticate(let mechanism, let initialResponse):
            guard plaintextAllowedForSignIn(tag, &actions) else { return }
            guard configuration.mechanisms.contains(mechanism) else {
                return tagged(
                    tag, IMAPStatusResponse(.no, code: .cannot, "Unsupported authentication mechanism"),
                    &actions)
            }
            if let initialResponse {
                phase = .awaitingDriver(tag: tag, .authenticate(mechanism: mechanism))
                actions.append(
                    .perform(
                        .authenticate(
                            SASLStep(mechanism: mechanism, response: initialResponse, isFirst: true))))
            } else {
                phase = .authenticating(tag: tag, mechanism: mechanism)
                send(.continuation(.challenge(SASLMessage(base64: ""))), &actions)
            }
        case .enable(let names):
            // Only IMAP4rev2 is enable-able here; others are ignored, as RFC 5161 asks.
            let enabling = names.filter { $0 == "IMAP4REV2" && !enabled.contains($0) }
            enabled.formUnion(enabling)
            if enabled.contains("IMAP4REV2") { encoder.utf8Quoted = true }
            untagged(.enabled(enabling.map { _ in "IMAP4rev2" }), &actions)
            tagged(tag, IMAPStatusResponse(.ok, "ENABLE completed"), &actions)
        case .idle:
            phase = .idling(tag: tag)
            send(.continuation(.text("idling")), &actions)
            actions.append(.perform(.idleStarted(selection: selection)))
        default:
            // The driver sees names in UTF-8: an IMAP4rev1 client's are modified UTF-7 (RFC 3501 §5.1.3).
            var command = command
            if !enabled.contains("IMAP4REV2") {
                guard let kind = command.kind.mappingMailboxNames(IMAPModifiedUTF7.decode) else {
                    return tagged(
                        tag, IMAPStatusResponse(.no, code: .cannot, "The mailbox name is not modified UTF-7"), &actions)
                }
                command.kind = kind
            }
            if case .select = command.kind, selection != nil { closeSelection(&actions) }
            if case .examine = command.kind, selection != nil { closeSelection(&actions) }
            phase = .awaitingDriver(tag: tag, .command(command.kind))
            actions.append(.perform(.run(command, selection: selection)))
        }
    }

    private mutating func closeSelection(_ actions: inout [Action]) {
        untagged(.condition(IMAPStatusResponse(.ok, code: .closed, "Previous mailbox closed")), &actions)
        selection = nil
        state = .authenticated
    }

    private mutating func startTLS(_ tag: String, _ actions: inout [Action]) {
        guard !isSecure else { return tagged(tag, IMAPStatusResponse(.bad, "TLS is already active"), &actions) }
        guard configuration.startTLSAvailable else {
            return tagged(tag, IMAPStatusResponse(.no, code: .unavailable, "TLS is not available"), &actions)
        }
        tagged(tag, IMAPStatusResponse(.ok, "Begin TLS negotiation now"), &actions)
        // Whatever the client sent after STARTTLS came before the handshake: it is dropped, never run as commands
        // under TLS (the command-injection attack of CVE-2011-0411).
        input.drop()
        phase = .startingTLS
        actions.append(.perform(.startTLS))
    }

    /// Whether `LOGIN` or `AUTHENTICATE` may go on; refuses it `NO [PRIVACYREQUIRED]` when not.
    private mutating func plaintextAllowedForSignIn(_ tag: String, _ actions: inout [Action]) -> Bool {
        guard plaintextAllowed else {
            tagged(tag, IMAPStatusResponse(.no, code: .privacyRequired, "Sign in only after STARTTLS"), &actions)
            return false
        }
        return true
    }

    /// A line read in line mode: an AUTHENTICATE message, the answer to an error challenge, or IDLE's DONE.
    mutating func lineArrived(_ line: [UInt8], _ actions: inout [Action]) {
        switch phase {
        case .authenticating(let tag, let mechanism):
            if line == [UInt8(ascii: "*")] {
                phase = .reading
                return tagged(tag, IMAPStatusResponse(.bad, "AUTHENTICATE cancelled"), &actions)
            }
            guard let response = SASLMessage(line: line) else {
                phase = .reading
                return tagged(tag, IMAPStatusResponse(.bad, "AUTHENTICATE response is not base64"), &actions)
            }
            phase = .awaitingDriver(tag: tag, .authenticate(mechanism: mechanism))
            actions.append(.perform(.authenticate(SASLStep(mechanism: mechanism, response: response, isFirst: false))))
        case .failingAuthentication(let tag, let code):
            phase = .reading
            tagged(tag, IMAPStatusResponse(.no, code: code, "Authentication failed"), &actions)
        case .idling(let tag):
            phase = .reading
            actions.append(.perform(.idleEnded))
            if line.count == 4 && line.map(ASCII.upper) == Array("DONE".utf8) {
                tagged(tag, IMAPStatusResponse(.ok, "IDLE terminated"), &actions)
            } else {
                tagged(tag, IMAPStatusResponse(.bad, "Expected DONE"), &actions)
            }
        default:
            return
        }
    }

    // MARK: - The driver's answers

    /// The driver's answer to ``IMAPRequest/login(username:password:)`` or ``IMAPRequest/authenticate(_:)``.
    public mutating func authenticated(
        _ outcome: IMAPAuthenticationOutcome, now: UInt64, into actions: inout [Action]
    ) {
        guard case .awaitingDriver(let tag, let pending) = phase else { return }
        let mechanism: String?
        switch pending {
        case .login: mechanism = nil
        case .authenticate(let name): mechanism = name
        case .command: return
        }
        lastHeard = now
        phase = .reading
        switch outcome {
        case .succeeded(let user):
            self.user = user
            state = .authenticated
            input.framer.limits = configuration.limits
            tagged(tag, IMAPStatusResponse(.ok, code: .capability(capabilities), "Signed in"), &actions)
        case .challenge(let challenge):
            guard let mechanism else {
                return tagged(
                    tag, IMAPStatusResponse(.no, code: .authenticationFailed, "Authentication failed"),
                    &actions)
            }
            phase = .authenticating(tag: tag, mechanism: mechanism)
            send(.continuation(.challenge(challenge)), &actions)
        case .failed(let code, let errorChallenge):
            if let errorChallenge, mechanism != nil {
                phase = .failingAuthentication(tag: tag, code: code)
                send(.continuation(.challenge(errorChallenge)), &actions)
            } else {
                tagged(tag, IMAPStatusResponse(.no, code: code, "Authentication failed"), &actions)
            }
        }
    }

    /// The driver's answer to ``IMAPRequest/run(_:selection:)``: its data and status are sent, and the state follows
    /// the command (a `SELECT` answered `OK` selects, a `CLOSE` answered `OK` deselects).
    public mutating func completed(_ result: IMAPCommandResult, now: UInt64, into actions: inout [Action]) {
        guard case .awaitingDriver(let tag, .command(let kind)) = phase else { return }
        lastHeard = now
        for response in result.responses { untagged(response, &actions) }
        if result.continues { return }  // the command goes on: the driver sends its next part
        phase = .reading
        input.framer.releaseDelivered()
        let ok = result.status.kind == .ok
        switch kind {
        case .select(let mailbox), .examine(let mailbox):
            if ok {
                var readOnly = result.status.code == .readOnly
                if case .examine = kind { readOnly = true }
                selection = IMAPSelection(mailbox: mailbox, readOnly: readOnly)
                state = .selected
            } else {
                selection = nil
                state = .authenticated
            }
        case .close, .unselect:
            if ok {
                selection = nil
                state = .authenticated
            }
        default:
            break
        }
        tagged(tag, result.status, &actions)
    }

    /// Changes to report while idling (`EXISTS`, `EXPUNGE`, `FETCH (FLAGS)`), sent at once.
    /// - Returns: false when the session is not idling: the driver keeps them for the next command's answer.
    @discardableResult
    public mutating func notify(_ responses: [IMAPUntaggedResponse], into actions: inout [Action]) -> Bool {
        guard case .idling = phase else { return false }
        for response in responses { untagged(response, &actions) }
        return true
    }

    /// The TLS handshake that ``IMAPRequest/startTLS`` asked for is done: the session reads commands again, now
    /// secure.
    public mutating func tlsEstablished(now: UInt64, into actions: inout [Action]) {
        guard phase == .startingTLS else { return }
        isSecure = true
        lastHeard = now
        phase = .reading
    }
}
