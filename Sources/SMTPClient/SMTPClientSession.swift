import AuthCrypto
import SMTPOutcomes

/// The client side of one SMTP connection to one destination (RFC 5321, with RFC 1869 EHLO, RFC 3207 STARTTLS,
/// RFC 4954 AUTH and RFC 2920 PIPELINING) as a pure state machine: the server's bytes, the end of the TLS handshake,
/// timeouts and a lost connection in; bytes to write, "start TLS", "wait for a reply within this long" and "close"
/// out. It carries every recipient of one or more messages and says for each whether it was delivered, deferred
/// (try again) or failed (bounce), with the server's reply.
///
/// The order: the `220` greeting; `EHLO` (`HELO` when `EHLO` gets a `5xx`); `STARTTLS` when offered (or the session
/// defers everything when the policy requires TLS and it is not offered) and `EHLO` again over TLS; `AUTH PLAIN` (or
/// `LOGIN`) when credentials are configured, only over TLS; then for each message `MAIL FROM` and its `RCPT TO`s,
/// in one write when the server offers PIPELINING, `DATA` once at least one recipient is accepted, the dot-stuffed
/// text, and `RSET` after a transaction that did not end in `DATA` and between messages; `QUIT` last.
///
/// Which status each reply gives: `2xx` delivered (for the accepted recipients, once the text's `250` arrives),
/// `4xx` deferred, `5xx` failed, each failure typed (``DeliveryFailure``) with the command it answered: a refused
/// `MAIL FROM` is about the sender (every recipient shares its fate, but nothing is said about their addresses), a
/// refused `RCPT TO` about the recipient, anything else about the session or the message. A lost connection, a
/// timeout, a malformed reply, a `421`, TLS or authentication that cannot be had all defer the recipients not yet
/// decided (an ``SMTPClientFailure``): the problem is this session's, not the message's.
/// Authentication refused (`535`) defers too: the operator's credentials are wrong, the message is not.
///
/// A value: the driver owns it and feeds it from one thread; tests drive it by hand.
public struct SMTPClientSession: Sendable {
    enum Stage: Equatable {
        case connecting
        case greeting
        case ehlo
        case helo
        case startTLS
        case handshaking
        case authPlain(resent: Bool)
        case authLoginUsername
        case authLoginPassword
        case authLoginResult
        /// `MAIL FROM` and `RCPT TO` replies still to come, in order.
        case envelope
        case data
        case content
        case reset
        case quit
        case done
    }

    /// A command of the envelope whose reply is awaited.
    enum EnvelopeCommand: Equatable {
        case mail
        case recipient(Int)
    }

    /// The configuration in force.
    public let configuration: SMTPClientConfiguration
    /// The messages, in the order they are sent.
    public let messages: [SMTPOutboundMessage]
    private var parser: SMTPReplyParser
    private(set) var stage = Stage.connecting
    private var waitTimeout: Duration = .zero
    private var decided: [[SMTPRecipientResult?]]
    /// The `EHLO` keywords (upper-cased) the server offered, with their parameters.
    public private(set) var extensions: [String: String] = [:]
    /// TLS is on.
    public private(set) var isSecured = false
    /// `AUTH` succeeded.
    public private(set) var isAuthenticated = false
    /// The server answered `STARTTLS` with an error and the policy let the session go on in the clear.
    private var tlsDeclined = false
    /// The message being sent.
    private var current = -1
    /// Envelope replies still awaited, and (without PIPELINING) the commands not yet sent.
    private var awaited: [EnvelopeCommand] = []
    private var unsent: [EnvelopeCommand] = []
    /// `MAIL FROM` was accepted: a transaction is open.
    private var transactionOpen = false
    /// Recipients of the current message accepted at `RCPT TO`.
    private var accepted: [Int] = []
    /// `RCPT TO` recipients of the current message that were sent (valid addresses).
    private var sentRecipients: [Int] = []

    /// A session for `messages` (all for the same destination).
    public init(configuration: SMTPClientConfiguration, messages: [SMTPOutboundMessage]) {
        self.configuration = configuration
        self.messages = messages
        self.parser = SMTPReplyParser(limits: configuration.replyLimits)
        self.decided = messages.map { Array(repeating: nil, count: $0.recipients.count) }
    }

    /// Whether the session is over (``results`` final).
    public var isFinished: Bool { stage == .done }

    /// Every recipient of every message, per message in order; recipients not decided yet are deferred
    /// (``SMTPClientFailure/notAttempted``; final once ``isFinished``).
    public var results: [[SMTPRecipientResult]] { messages.indices.map(results(of:)) }

    /// The results of message `index`'s recipients, in order (see ``results``).
    public func results(of message: Int) -> [SMTPRecipientResult] {
        messages[message].recipients.indices.map { recipient in
            decided[message][recipient]
                ?? SMTPRecipientResult(
                    recipient: messages[message].recipients[recipient], status: .deferred(.client(.notAttempted)))
        }
    }

    /// Whether every recipient of message `index` is decided: its outcome is final whatever the session does next
    /// (a message's transaction ended; the queue may record it before the connection ends). Messages are decided in
    /// order: one is decided before the next starts, and an ending session decides every one left.
    public func isDecided(message index: Int) -> Bool {
        decided.indices.contains(index) && !decided[index].contains(where: { $0 == nil })
    }

    // MARK: - Events

    /// The connection is open: wait for the greeting.
    /// - Parameter overTLS: the connection is already encrypted (implicit TLS, `smtps`): no `STARTTLS`, and `AUTH`
    ///   may be sent.
    public mutating func connected(overTLS: Bool = false) -> [SMTPClientAction] {
        guard stage == .connecting else { return [] }
        isSecured = overTLS
        stage = .greeting
        waitTimeout = configuration.timeouts.greeting
        return [.awaitReply(timeout: waitTimeout)]
    }

    /// Bytes read from the connection (plaintext: the driver decrypts).
    public mutating func receive<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [SMTPClientAction] {
        guard stage != .done, stage != .connecting else { return [] }
        var actions: [SMTPClientAction] = []
        let replies: [SMTPClientReply]
        do {
            replies = try parser.feed(bytes)
        } catch {
            abandon(.protocolViolation("the server's reply was not SMTP (\(error.description))"), into: &actions)
            return actions
        }
        guard !replies.isEmpty else { return [] }  // half a reply: keep waiting, same timeout
        for (index, reply) in replies.enumerated() {
            guard stage != .done else { break }
            handle(reply, into: &actions)
            if stage == .handshaking && index < replies.count - 1 {
                // A reply after the 220 to STARTTLS, in the clear: an injection (RFC 3207 §5).
                actions.removeAll { $0 == .startTLS }
                abandon(.tls("the server sent data after 220 to STARTTLS"), into: &actions)
            }
        }
        return finish(actions)
    }

    /// The TLS handshake asked for by ``SMTPClientAction/startTLS`` completed: `EHLO` again (RFC 3207 §4.2).
    public mutating func tlsEstablished() -> [SMTPClientAction] {
        guard stage == .handshaking else { return [] }
        isSecured = true
        extensions = [:]
        parser = SMTPReplyParser(limits: configuration.replyLimits)
        var actions: [SMTPClientAction] = []
        sendEHLO(into: &actions)
        return finish(actions)
    }

    /// The reply awaited did not come within its timeout: the session is over, its recipients deferred.
    public mutating func timedOut() -> [SMTPClientAction] {
        connectionFailed(.timeout)
    }

    /// The connection failed (reset, closed by the server, a TLS handshake or write that failed): the session is
    /// over, its recipients not yet decided deferred with `failure`.
    public mutating func connectionFailed(_ failure: SMTPClientFailure) -> [SMTPClientAction] {
        guard stage != .done else { return [] }
        var actions: [SMTPClientAction] = []
        abandon(failure, into: &actions)
        return actions
    }

    // MARK: - Replies

    private mutating func handle(_ reply: SMTPClientReply, into actions: inout [SMTPClientAction]) {
        if reply.code == 421 && stage != .quit {
            // The server is closing the channel (RFC 5321 §3.8): whatever was pending is deferred.
            return abandon(.deferred(.remote(reply.reply, about: nil)), into: &actions)
        }
        switch stage {
        case .connecting, .handshaking, .done:
            abandon(.protocolViolation("the server replied when no reply was due"), into: &actions)
        case .greeting:
            guard reply.code == 220 else { return giveUp(reply, into: &actions) }
            sendEHLO(into: &actions)
        case .ehlo:
            if reply.isPositive {
                extensions = SMTPClientSession.parseExtensions(reply)
                return afterHello(into: &actions)
            }
            guard reply.isPermanent, !isSecured else { return giveUp(reply, into: &actions) }
            stage = .helo
            send("HELO \(configuration.heloName)", timeout: configuration.timeouts.command, into: &actions)
        case .helo:
            guard reply.isPositive else { return giveUp(reply, into: &actions) }
            extensions = [:]
            afterHello(into: &actions)
        case .startTLS:
            if reply.code == 220 {
                // Anything after the 220 arrived before the handshake, in the clear: an injection (RFC 3207 §5).
                guard !parser.hasBufferedInput else {
                    return abandon(.tls("the server sent data after 220 to STARTTLS"), into: &actions)
                }
                stage = .handshaking
                actions.append(.startTLS)
                return
            }
            guard configuration.tls != .required else {
                return abandon(.deferred(.remote(reply.reply, about: nil)), quit: true, into: &actions)
            }
            tlsDeclined = true
            afterHello(into: &actions)
        case .authPlain(let resent):
            if reply.code == 334 && !resent, let credentials = configuration.credentials {
                // The server wants the response on a line of its own after all.
                stage = .authPlain(resent: true)
                return send(SMTPClientSession.plainResponse(credentials), into: &actions)
            }
            authenticated(reply, into: &actions)
        case .authLoginUsername:
            guard reply.code == 334, let credentials = configuration.credentials else {
                return authenticated(reply, into: &actions)
            }
            stage = .authLoginPassword
            send(Base64.encode(Array(credentials.username.utf8)), into: &actions)
        case .authLoginPassword:
            guard reply.code == 334, let credentials = configuration.credentials else {
                return authenticated(reply, into: &actions)
            }
            stage = .authLoginResult
            send(Base64.encode(Array(credentials.password.utf8)), into: &actions)
        case .authLoginResult:
            authenticated(reply, into: &actions)
        case .envelope:
            envelopeReply(reply, into: &actions)
        case .data:
            guard reply.code == 354 else {
                decideAccepted(reply, into: &actions)
                return reset(into: &actions)
            }
            stage = .content
            let text = SMTPDataEncoder.encode(messages[current].content)
            actions.append(.send(text, timeout: configuration.timeouts.dataBlock))
            waitTimeout = configuration.timeouts.dataTermination
        case .content:
            transactionOpen = false
            decideAccepted(reply, into: &actions)
            // Another message follows on this connection: RSET first, so it starts from a known state (a server
            // that kept anything of the last transaction, or dropped the connection meanwhile, shows it there).
            guard current + 1 < messages.count else { return nextMessage(into: &actions) }
            reset(into: &actions)
        case .reset:
            transactionOpen = false
            nextMessage(into: &actions)
        case .quit:
            stage = .done
            actions.append(.close)
        }
    }

    private mutating func sendEHLO(into actions: inout [SMTPClientAction]) {
        stage = .ehlo
        send("EHLO \(configuration.heloName)", timeout: configuration.timeouts.command, into: &actions)
    }

    /// After a positive `EHLO` or `HELO`: STARTTLS, AUTH or the first message.
    private mutating func afterHello(into actions: inout [SMTPClientAction]) {
        if !isSecured && !tlsDeclined && configuration.tls != .disabled && extensions["STARTTLS"] != nil {
            stage = .startTLS
            return send("STARTTLS", timeout: configuration.timeouts.command, into: &actions)
        }
        if !isSecured && configuration.tls == .required {
            return abandon(.tls("TLS required but STARTTLS not offered"), quit: true, into: &actions)
        }
        guard let credentials = configuration.credentials else { return nextMessage(into: &actions) }
        guard isSecured else {
            return abandon(
                .authentication("AUTH is sent only over TLS, and TLS is not on"), quit: true, into: &actions)
        }
        let mechanisms = Set((extensions["AUTH"] ?? "").uppercased().split(separator: " ").map(String.init))
        if mechanisms.contains("PLAIN") {
            stage = .authPlain(resent: false)
            send("AUTH PLAIN \(SMTPClientSession.plainResponse(credentials))", into: &actions)
        } else if mechanisms.contains("LOGIN") {
            stage = .authLoginUsername
            send("AUTH LOGIN", into: &actions)
        } else {
            abandon(
                .authentication("the server offers neither AUTH PLAIN nor AUTH LOGIN"), quit: true, into: &actions)
        }
    }

    private mutating func authenticated(_ reply: SMTPClientReply, into actions: inout [SMTPClientAction]) {
        guard reply.isPositive else {
            // The operator's credentials are wrong, not the message: deferred whatever the class.
            return abandon(.deferred(.remote(reply.reply, about: nil)), quit: true, into: &actions)
        }
        isAuthenticated = true
        nextMessage(into: &actions)
    }

    /// Starts the next message that has recipients left to try, or `QUIT`.
    private mutating func nextMessage(into actions: inout [SMTPClientAction]) {
        while true {
            current += 1
            guard current < messages.count else {
                stage = .quit
                return send("QUIT", timeout: configuration.timeouts.command, into: &actions)
            }
            if startTransaction(into: &actions) { return }
        }
    }

    /// Sends `MAIL FROM` and the `RCPT TO`s of the current message (all at once with PIPELINING); false when the
    /// message had nothing to send (every recipient decided here).
    private mutating func startTransaction(into actions: inout [SMTPClientAction]) -> Bool {
        let message = messages[current]
        let smtputf8 = extensions["SMTPUTF8"] != nil
        func refuse(_ index: Int, _ refusal: SMTPClientFailure.Refusal, _ role: AddressRole?) {
            decide(current, index, .failed(.client(.refused(refusal, address: role))))
        }
        guard SMTPClientSession.isValidPath(message.sender, allowEmpty: true) else {
            message.recipients.indices.forEach { refuse($0, .invalidAddress, .sender) }
            return false
        }
        if let limit = extensions["SIZE"].flatMap({ Int($0) }), limit > 0, message.content.count > limit {
            message.recipients.indices.forEach { refuse($0, .messageTooLarge(limit: limit), nil) }
            return false
        }
        let needsUTF8 = !message.sender.utf8.allSatisfy { $0 < 0x80 }
        if needsUTF8 && !smtputf8 {
            message.recipients.indices.forEach { refuse($0, .utf8NotSupported, .sender) }
            return false
        }
        sentRecipients = []
        for (index, recipient) in message.recipients.enumerated() {
            if !SMTPClientSession.isValidPath(recipient, allowEmpty: false) {
                refuse(index, .invalidAddress, .recipient)
            } else if !smtputf8 && !recipient.utf8.allSatisfy({ $0 < 0x80 }) {
                refuse(index, .utf8NotSupported, .recipient)
            } else {
                sentRecipients.append(index)
            }
        }
        guard !sentRecipients.isEmpty else { return false }
        accepted = []
        transactionOpen = false
        stage = .envelope
        awaited = [.mail] + sentRecipients.map { .recipient($0) }
        if extensions["PIPELINING"] != nil {
            unsent = []
            var bytes: [UInt8] = []
            for command in awaited { bytes += Array((commandLine(command) + "\r\n").utf8) }
            actions.append(.send(bytes, timeout: configuration.timeouts.command))
        } else {
            unsent = Array(awaited.dropFirst())
            send(commandLine(.mail), timeout: configuration.timeouts.command, into: &actions)
        }
        waitTimeout = configuration.timeouts.mail
        return true
    }

    private func commandLine(_ command: EnvelopeCommand) -> String {
        let message = messages[current]
        switch command {
        case .mail:
            var line = "MAIL FROM:<\(message.sender)>"
            if extensions["SIZE"] != nil { line += " SIZE=\(message.content.count)" }
            if extensions["8BITMIME"] != nil, message.content.contains(where: { $0 >= 0x80 }) {
                line += " BODY=8BITMIME"
            }
            if extensions["SMTPUTF8"] != nil,
                !(message.sender + message.recipients.joined()).utf8.allSatisfy({ $0 < 0x80 })
            {
                line += " SMTPUTF8"
            }
            return line
        case .recipient(let index):
            return "RCPT TO:<\(message.recipients[index])>"
        }
    }

    private mutating func envelopeReply(_ reply: SMTPClientReply, into actions: inout [SMTPClientAction]) {
        guard !awaited.isEmpty else {
            return abandon(.protocolViolation("the server replied when no reply was due"), into: &actions)
        }
        let command = awaited.removeFirst()
        switch command {
        case .mail:
            if reply.isPositive {
                transactionOpen = true
            } else {
                // Every recipient shares the sender's fate; with PIPELINING their replies (503s) still come.
                for index in sentRecipients { decide(current, index, status(of: reply, about: .sender)) }
                if !unsent.isEmpty {
                    unsent = []
                    awaited = []
                }
            }
        case .recipient(let index):
            if transactionOpen {
                if reply.isPositive {
                    accepted.append(index)
                } else {
                    decide(current, index, status(of: reply, about: .recipient))
                }
            }
        }
        if !unsent.isEmpty {
            let next = unsent.removeFirst()
            return send(commandLine(next), timeout: configuration.timeouts.command, into: &actions)
        }
        guard awaited.isEmpty else {
            waitTimeout = configuration.timeouts.recipient
            return
        }
        if !accepted.isEmpty {
            stage = .data
            send("DATA", timeout: configuration.timeouts.command, into: &actions)
            waitTimeout = configuration.timeouts.dataInitiation
        } else if transactionOpen {
            reset(into: &actions)
        } else {
            nextMessage(into: &actions)
        }
    }

    /// `RSET` after a transaction that ended before its text was sent.
    private mutating func reset(into actions: inout [SMTPClientAction]) {
        stage = .reset
        send("RSET", timeout: configuration.timeouts.command, into: &actions)
    }

    /// Decides the recipients `RCPT TO` accepted by `reply` (to `DATA` or to the text).
    private mutating func decideAccepted(_ reply: SMTPClientReply, into actions: inout [SMTPClientAction]) {
        let outcome: RecipientStatus = reply.isPositive ? .delivered(reply.reply) : status(of: reply, about: nil)
        for index in accepted { decide(current, index, outcome) }
        accepted = []
    }

    // MARK: - Ending

    /// A reply that ends the session where it stands: its class decides the recipients left (`5xx` failed,
    /// anything else deferred); `QUIT` follows.
    private mutating func giveUp(_ reply: SMTPClientReply, into actions: inout [SMTPClientAction]) {
        abandon(status(of: reply, about: nil), quit: true, into: &actions)
    }

    /// Defers every recipient not yet decided with the client's `failure`, then `QUIT` or close.
    private mutating func abandon(
        _ failure: SMTPClientFailure, quit: Bool = false, into actions: inout [SMTPClientAction]
    ) {
        abandon(.deferred(.client(failure)), quit: quit, into: &actions)
    }

    /// Decides every recipient not yet decided, then `QUIT` (when the channel still speaks SMTP) or close.
    private mutating func abandon(
        _ status: RecipientStatus, quit: Bool = false, into actions: inout [SMTPClientAction]
    ) {
        for message in messages.indices {
            for recipient in messages[message].recipients.indices where decided[message][recipient] == nil {
                decide(message, recipient, status)
            }
        }
        if quit {
            stage = .quit
            send("QUIT", timeout: configuration.timeouts.command, into: &actions)
        } else {
            stage = .done
            actions.append(.close)
        }
    }

    private mutating func decide(_ message: Int, _ recipient: Int, _ status: RecipientStatus) {
        guard decided[message][recipient] == nil else { return }
        decided[message][recipient] = SMTPRecipientResult(
            recipient: messages[message].recipients[recipient], status: status)
    }

    /// A refusal's status by its class (`5xx` failed, anything else deferred), about the address its command named.
    private func status(of reply: SMTPClientReply, about role: AddressRole?) -> RecipientStatus {
        let failure = DeliveryFailure.remote(reply.reply, about: role)
        return reply.isPermanent ? .failed(failure) : .deferred(failure)
    }

    // MARK: - Output

    private mutating func send(_ line: String, timeout: Duration? = nil, into actions: inout [SMTPClientAction]) {
        let timeout = timeout ?? configuration.timeouts.command
        actions.append(.send(Array((line + "\r\n").utf8), timeout: timeout))
        waitTimeout = timeout
    }

    /// Appends the wait for the next reply when the session expects one.
    private func finish(_ actions: [SMTPClientAction]) -> [SMTPClientAction] {
        switch stage {
        case .done, .handshaking, .connecting:
            return actions
        default:
            return actions + [.awaitReply(timeout: waitTimeout)]
        }
    }

    // MARK: - Helpers

    /// `EHLO` lines after the first: keyword (upper-cased) and parameters.
    static func parseExtensions(_ reply: SMTPClientReply) -> [String: String] {
        var extensions: [String: String] = [:]
        for line in reply.lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let keyword = parts.first else { continue }
            let name = keyword.uppercased()
            // `AUTH=PLAIN LOGIN`, the pre-standard spelling some servers still send.
            if name.hasPrefix("AUTH=") {
                extensions["AUTH", default: ""] += " " + name.dropFirst(5)
                continue
            }
            extensions[name] = parts.count > 1 ? String(parts[1]) : ""
        }
        return extensions
    }

    /// A path that can go between angle brackets without ending the command early: no control characters, spaces
    /// or angle brackets, at most 256 bytes (RFC 5321 §4.5.3.1.3), an `@` unless empty.
    static func isValidPath(_ path: String, allowEmpty: Bool) -> Bool {
        if path.isEmpty { return allowEmpty }
        guard path.utf8.count <= 256, path.contains("@") else { return false }
        return path.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }
    }

    /// `AUTH PLAIN`'s response: base64 of NUL, the user name, NUL, the password (RFC 4616).
    static func plainResponse(_ credentials: SMTPCredentials) -> String {
        Base64.encode([0] + Array(credentials.username.utf8) + [0] + Array(credentials.password.utf8))
    }
}
