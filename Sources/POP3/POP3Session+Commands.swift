import MailDoor
import SASL

/// POP3's commands, and the driver's answers.
extension POP3Session {
    mutating func run(_ command: POP3Command, _ actions: inout [Action]) {
        switch (state, command) {
        case (_, .capa):
            send(.multiline("Capability list follows", capabilities.map { Array($0.utf8) }), &actions)
        case (.authorization, .quit):
            send(.ok("Postern POP3 signing off"), &actions)
            close(&actions)
        case (.authorization, .stls):
            startTLS(&actions)
        case (.authorization, .apop):
            send(.error(nil, "APOP not supported"), &actions)
        case (.authorization, .user(let name)):
            guard plaintextAllowedForSignIn(&actions) else { return }
            username = name
            send(.ok("Send PASS"), &actions)
        case (.authorization, .pass(let password)):
            guard plaintextAllowedForSignIn(&actions) else { return }
            guard let username else { return send(.error(nil, "USER first"), &actions) }
            self.username = nil
            phase = .awaitingDriver(.login)
            actions.append(.perform(.login(username: username, password: password)))
        case (.authorization, .auth(nil, _)):
            let names = plaintextAllowed ? configuration.mechanisms : []
            send(.multiline("Mechanisms follow", names.map { Array($0.utf8) }), &actions)
        case (.authorization, .auth(let mechanism?, let initialResponse)):
            guard plaintextAllowedForSignIn(&actions) else { return }
            guard configuration.mechanisms.contains(mechanism) else {
                return send(.error(nil, "Unsupported authentication mechanism"), &actions)
            }
            if let initialResponse {
                phase = .awaitingDriver(.authenticate(mechanism: mechanism))
                actions.append(
                    .perform(.authenticate(SASLStep(mechanism: mechanism, response: initialResponse, isFirst: true))))
            } else {
                phase = .authenticating(mechanism: mechanism)
                send(.challenge(SASLMessage(base64: "")), &actions)
            }
        case (.transaction, .stat):
            let (count, size) = totals
            send(.ok("\(count) \(size)"), &actions)
        case (.transaction, .list(let number)), (.transaction, .uidl(let number)):
            let uid: Bool
            if case .uidl = command { uid = true } else { uid = false }
            let maildrop = self.maildrop
            let describe = { (index: Int) in
                "\(index + 1) " + (uid ? maildrop[index].uid : String(maildrop[index].size))
            }
            if let number {
                guard let index = live(number) else { return send(.error(nil, "No such message"), &actions) }
                return send(.ok(describe(index)), &actions)
            }
            let (count, size) = totals
            let lines = maildrop.indices.filter { !deleted.contains($0) }.map { Array(describe($0).utf8) }
            send(.multiline(uid ? "Unique-ID listing follows" : "\(count) messages (\(size) octets)", lines), &actions)
        case (.transaction, .retr(let number)), (.transaction, .top(let number, _)):
            guard let index = live(number) else { return send(.error(nil, "No such message"), &actions) }
            var topLines: Int?
            if case .top(_, let lines) = command { topLines = lines }
            phase = .awaitingDriver(.retrieve(topLines: topLines))
            actions.append(.perform(.retrieve(maildrop[index])))
        case (.transaction, .dele(let number)):
            guard number <= maildrop.count else { return send(.error(nil, "No such message"), &actions) }
            guard deleted.insert(number - 1).inserted else {
                return send(.error(nil, "Message \(number) already deleted"), &actions)
            }
            send(.ok("Message \(number) deleted"), &actions)
        case (.transaction, .rset):
            deleted = []
            let (count, size) = totals
            send(.ok("Maildrop has \(count) messages (\(size) octets)"), &actions)
        case (.transaction, .noop):
            send(.ok(""), &actions)
        case (.transaction, .quit):
            state = .update
            guard !deleted.isEmpty else {
                send(.ok("Postern POP3 signing off"), &actions)
                return close(&actions)
            }
            phase = .awaitingDriver(.commit)
            actions.append(.perform(.commitDeletions(deleted.sorted().map { maildrop[$0] })))
        default:
            send(.error(nil, POP3CommandError.wrongState.text), &actions)
        }
    }

    /// The capabilities in the present state (RFC 2449 §6).
    public var capabilities: [String] {
        var names = ["TOP", "UIDL", "RESP-CODES", "AUTH-RESP-CODE", "PIPELINING"]
        if state == .authorization {
            if plaintextAllowed {
                names.append("USER")
                if !configuration.mechanisms.isEmpty {
                    names.append("SASL " + configuration.mechanisms.joined(separator: " "))
                }
            }
            if configuration.startTLSAvailable && !isSecure { names.append("STLS") }
        }
        return names + ["IMPLEMENTATION Postern"]
    }

    /// The count and total size of the messages not marked deleted.
    private var totals: (Int, Int) {
        let live = maildrop.indices.filter { !deleted.contains($0) }
        return (live.count, live.reduce(0) { $0 + maildrop[$1].size })
    }

    /// The index of message `number` when it exists and is not marked deleted.
    private func live(_ number: Int) -> Int? {
        guard number >= 1, number <= maildrop.count, !deleted.contains(number - 1) else { return nil }
        return number - 1
    }

    private mutating func plaintextAllowedForSignIn(_ actions: inout [Action]) -> Bool {
        guard plaintextAllowed else {
            send(.error(nil, "Sign in only after STLS"), &actions)
            return false
        }
        return true
    }

    private mutating func startTLS(_ actions: inout [Action]) {
        guard !isSecure else { return send(.error(nil, "TLS is already active"), &actions) }
        guard configuration.startTLSAvailable else { return send(.error(nil, "TLS is not available"), &actions) }
        send(.ok("Begin TLS negotiation"), &actions)
        // Input after STLS came before the handshake: dropped, never read under TLS.
        input.drop()
        phase = .startingTLS
        actions.append(.perform(.startTLS))
    }

    mutating func saslLine(_ line: [UInt8], mechanism: String, _ actions: inout [Action]) {
        phase = .reading
        if line == [UInt8(ascii: "*")] { return send(.error(nil, "AUTH cancelled"), &actions) }
        guard let response = SASLMessage(line: line) else {
            return send(.error(nil, "AUTH response is not base64"), &actions)
        }
        phase = .awaitingDriver(.authenticate(mechanism: mechanism))
        actions.append(.perform(.authenticate(SASLStep(mechanism: mechanism, response: response, isFirst: false))))
    }

    mutating func signInFailed(_ code: POP3ResponseCode, _ actions: inout [Action]) {
        failedSignIns += 1
        send(.error(code, "Authentication failed"), &actions)
        if failedSignIns >= configuration.limits.maxFailedSignIns { close(&actions) }
    }

    // MARK: - The driver's answers

    /// The driver's answer to ``POP3Request/login(username:password:)`` or ``POP3Request/authenticate(_:)``.
    public mutating func authenticated(
        _ outcome: POP3AuthenticationOutcome, now: UInt64, into actions: inout [Action]
    ) {
        guard case .awaitingDriver(let pending) = phase else { return }
        let mechanism: String?
        switch pending {
        case .login: mechanism = nil
        case .authenticate(let name): mechanism = name
        default: return
        }
        lastHeard = now
        phase = .reading
        switch outcome {
        case .succeeded(let user, let maildrop):
            self.user = user
            self.maildrop = maildrop
            state = .transaction
            let (count, size) = totals
            send(.ok("Maildrop has \(count) messages (\(size) octets)"), &actions)
        case .challenge(let challenge):
            guard let mechanism else { return signInFailed(.auth, &actions) }
            phase = .authenticating(mechanism: mechanism)
            send(.challenge(challenge), &actions)
        case .failed(let code, let errorChallenge):
            if let errorChallenge, mechanism != nil {
                phase = .failingAuthentication(code: code)
                send(.challenge(errorChallenge), &actions)
            } else {
                signInFailed(code, &actions)
            }
        }
    }

    /// The driver's answer to ``POP3Request/retrieve(_:)``: the message's bytes, or nil when it is gone.
    public mutating func retrieved(_ message: [UInt8]?, now: UInt64, into actions: inout [Action]) {
        guard case .awaitingDriver(.retrieve(let topLines)) = phase else { return }
        lastHeard = now
        phase = .reading
        guard let message else {
            return send(.error(.systemTemporary, "Message is no longer available"), &actions)
        }
        if let topLines {
            send(.content("Top of message follows", Self.top(message, lines: topLines)), &actions)
        } else {
            send(.content("\(message.count) octets", message), &actions)
        }
    }

    /// The driver's answer to ``POP3Request/commitDeletions(_:)``: whether every marked message was removed.
    public mutating func committed(_ removed: Bool, now: UInt64, into actions: inout [Action]) {
        guard case .awaitingDriver(.commit) = phase else { return }
        if removed {
            send(.ok("Postern POP3 signing off (\(deleted.count) messages deleted)"), &actions)
        } else {
            send(.error(.systemTemporary, "Some deleted messages not removed"), &actions)
        }
        close(&actions)
    }

    /// The STLS handshake is done: commands again, now secure.
    public mutating func tlsEstablished(now: UInt64, into actions: inout [Action]) {
        guard phase == .startingTLS else { return }
        isSecure = true
        lastHeard = now
        phase = .reading
    }

    /// The header, the empty line and the first `lines` lines of the body of `message` (RFC 1939 §7 TOP).
    static func top(_ message: [UInt8], lines: Int) -> [UInt8] {
        var index = 0
        var sawBody = false
        var bodyLines = 0
        while index < message.count {
            let end = (message[index...].firstIndex(of: ASCII.lf) ?? message.count - 1) + 1
            if sawBody {
                if bodyLines == lines { return Array(message[..<index]) }
                bodyLines += 1
            } else if end - index <= 2 && (message[index] == ASCII.lf || message[index] == ASCII.cr) {
                sawBody = true
            }
            index = end
        }
        return message
    }
}
