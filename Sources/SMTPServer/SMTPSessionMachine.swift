import BufferBudget
import SASL
import SocketServer

/// The SMTP rules of one session (RFC 5321, the subset a local catch-all needs) as a pure state
/// machine: bytes, write progress, timers and the sink's answers in; writes, interest changes, timers,
/// jobs for the sink and closes out.
///
/// Commands are taken one at a time, in order, from whatever has been read, so pipelined commands
/// (RFC 2920) are answered in order. A command that needs the sink (`RCPT TO` asks for a verdict, the
/// end of the message text asks for delivery) pauses reading and parsing until its job completes; the
/// answer to a message is `250` only once the sink reports it durably stored. Parsing also pauses while
/// the session's `ConnectionLifecycle` takes no input (the socket does not take output, or unsent output is
/// above its high-water mark: back-pressure). After the last reply (`QUIT`, a timeout, shutdown, a refusal)
/// the lifecycle closes the session lingering, so that unread input does not reset the connection before the
/// client has read the reply.
///
/// The same machine serves three listeners, by its configuration: a receiving MX (no `AUTH`), the sandbox (`AUTH PLAIN`
/// and `LOGIN` required, the credential confirmed at each `MAIL FROM`) and a submission listener
/// (``SMTPServerConfiguration/submission``, RFC 6409: the OAuth mechanisms too, each `MAIL FROM` admitted by the sink
/// for the sign-in it made, `DSN`'s parameters kept on the envelope).
public struct SMTPSessionMachine: LifecycleConnectionMachine {
    /// What the session waits for from the sink.
    enum Pending: Equatable {
        case verdict(recipient: String, dsn: SMTPRecipientParameters)
        /// `AUTH` credentials are being checked.
        case authentication
        /// `MAIL FROM:<mailFrom>` waits for the sink to say the credential `AUTH` proved is still good (on a submission
        /// listener: that the signed-in mailbox may send from it).
        case confirmation(mailFrom: String, dsn: SMTPMailParameters)
        /// A message of `bytes` bytes for `recipients` recipients is being stored.
        case delivery(bytes: Int, recipients: Int)
        /// A failure-injection rule stalls the session; then it goes on with `resume`.
        case stall(then: ChaosResume)
    }

    /// What a stalled session does once the stall is over: what it was about to do when the rule fired.
    enum ChaosResume: Equatable {
        /// Greet.
        case greeting
        /// Carry out this command, asking the rules no more.
        case command(SMTPCommand)
        /// Answer the successful `AUTH`.
        case authenticated
        /// Store the message read (``stalledMessage``).
        case messageEnded
    }

    /// A mail transaction: from `MAIL FROM` to the end of the message, `RSET` or a new `HELO`/`EHLO`.
    struct Transaction: Equatable {
        var mailFrom: String
        /// `MAIL FROM`'s RFC 3461 parameters.
        var dsn = SMTPMailParameters()
        var recipients: [String] = []
        /// Each accepted recipient's RFC 3461 parameters, beside ``recipients``.
        var recipientDSN: [SMTPRecipientParameters] = []
        /// Every `RCPT TO` with its reply code, refused ones too (the transaction's log record).
        var replies: [SMTPTransactionRecord.RecipientReply] = []
        /// Bytes of message text, once read.
        var size: Int?
    }

    let shared: SMTPSessionShared
    let peer: String
    let refusing: Bool
    /// The listener drains before a stop: the session is answered `421 4.3.2` at once and closed.
    let draining: Bool
    /// Output, back-pressure, the client's end of input and the lingering close.
    package var lifecycle = ConnectionLifecycle()
    /// Bytes read and not yet parsed.
    var input: [UInt8] = []
    /// How much of `input` is known to hold no line end.
    var scanned = 0
    /// `HELO` or `EHLO` was accepted.
    private(set) var greeted = false
    /// The name the client gave in `HELO`/`EHLO`.
    private(set) var heloName = ""
    /// The greeting was `EHLO` (the trace field's `with ESMTP`), not `HELO`.
    private(set) var extended = false
    /// TLS is on (RFC 3207): STARTTLS is no longer offered.
    private(set) var secured = false
    /// `STARTTLS` was answered `220`: the transport under the session must start TLS now; nothing more is parsed
    /// in plaintext (``tlsEstablished()`` resumes).
    public private(set) var wantsTLS = false
    /// The identity `AUTH` proved (the sink's), nil before.
    var authenticatedAs: String?
    /// A submission listener's sign-in, as the sink made it (``authenticatedAs`` is its identity); nil before `AUTH`
    /// and elsewhere.
    var signIn: SMTPSignIn?
    /// A refused token's RFC 7628 error challenge was sent: the client's next line ends the exchange with `535`.
    var bearerRefusalSent = false
    /// The mechanism of an `AUTH` exchange waiting for the client's next base64 line, and where the exchange stands.
    var authMechanism: String?
    var sasl = PasswordSASL()
    /// `AUTH` attempts the credentials of which were wrong (`535`), against `maxAuthenticationFailures`.
    var authenticationFailures = 0
    private(set) var transaction: Transaction?
    /// Set between `354` and the end mark.
    var reader: SMTPDataReader?
    /// The message read when an `after-data` rule stalled the session, stored once the stall is over.
    var stalledMessage: SMTPDataReader?
    /// The budget's bytes of the message being stored, given back with its outcome.
    private var delivering: BufferReservation?
    /// Whose failure-injection rules this session follows: the server's from the start on the ingest port, the
    /// authenticated user's on the sandbox port; nil for none.
    var chaosScope: SMTPChaosScope?
    /// A command line over the limit is being skipped to its end.
    var discardingLongLine = false
    var pending: Pending?
    private(set) var protocolErrors = 0
    /// The server is shutting down: the next idle moment says 421 and closes.
    private(set) var stopping = false
    /// The last read, write progress or completion, from which the timeouts run.
    private(set) var lastActivity: UInt64 = 0
    /// When the session opened, from which `maxSessionDuration` runs.
    private(set) var openedAt: UInt64 = 0

    /// Creates the machine of a new session from `peer`.
    /// - Parameters:
    ///   - shared: the server's limits and fixed replies.
    ///   - peer: the socket peer's IP address as text (the envelope's `remoteAddress`).
    ///   - refusing: over the connection cap: answer `421` at once and close.
    ///   - draining: the listener drains before a stop: answer `421 4.3.2` at once and close.
    public init(shared: SMTPSessionShared, peer: String, refusing: Bool, draining: Bool = false) {
        self.shared = shared
        self.peer = peer
        self.refusing = refusing
        self.draining = draining
        if shared.configuration.chaos?.scoping == .server { chaosScope = .server }
    }

    /// Whether commands are taken: neither the last reply queued nor the session closing.
    private var isOpen: Bool { lifecycle.stage == .open }

    public mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard !lifecycle.isClosed else { return }
        switch event {
        case .opened:
            lastActivity = now
            openedAt = now
            if refusing {
                shared.observer?(.sessionRefused)
                finish(with: .tooManyConnections)
            } else if draining {
                finish(with: .shuttingDown)
            } else if let fault = chaos(SMTPChaosPoint(.connect)) {
                inject(fault, resume: .greeting, into: &actions)
            } else {
                lifecycle.output.append(shared.greeting)
            }
        case .bytesRead(let bytes):
            lastActivity = now
            guard isOpen else { break }  // lingering or closing: drained, never parsed
            input.append(contentsOf: bytes)
            process(into: &actions)
        case .readEOF:
            if lifecycle.peerDidClose(into: &actions) { return close(into: &actions) }
            if isOpen && pending == nil && lifecycle.output.isEmpty { return close(into: &actions) }
        case .wrote(let count):
            let drained = lifecycle.didWrite(count)
            lastActivity = now
            if drained { outputDrained(now: now, into: &actions) }
        case .writeBlocked:
            if lifecycle.didBlock() { lastActivity = now }
        case .writable:
            lifecycle.becameWritable()
            process(into: &actions)
        case .timerFired:
            timerFired(now: now, into: &actions)
        case .completed(let value):
            guard let completion = value as? Completion else { return close(into: &actions) }
            lastActivity = now
            complete(completion.outcome, into: &actions)
        case .shutdown:
            stopping = true
        case .reset:
            return close(into: &actions)
        }
        guard !lifecycle.isClosed else { return }
        if stopping && isOpen && pending == nil && reader == nil {
            // Idle between commands: say so and close. A message being read or stored finishes first.
            finish(with: .shuttingDown)
        }
        let read = isOpen && !lifecycle.peerClosed && pending == nil && lifecycle.takesInput
        lifecycle.finishTurn(after: event, read: read, deadline: deadline, into: &actions)
    }

    // MARK: - Input

    /// Parses and answers buffered input until it runs out or something must be waited for.
    private mutating func process(into actions: inout [ConnectionAction]) {
        let limit = shared.configuration.maxCommandLineLength
        var start = 0
        while isOpen && pending == nil && !wantsTLS && lifecycle.takesInput && start < input.count {
            if var reader {
                self.reader = nil  // so that the local copy owns the text and appends without copying it
                let from = start
                let (consumed, finished) = input.withUnsafeBufferPointer {
                    reader.consume(UnsafeBufferPointer(rebasing: $0[from...]))
                }
                start += consumed
                if finished {
                    messageEnded(reader, into: &actions)
                } else {
                    self.reader = reader
                }
                continue
            }
            if stopping { break }
            guard let lineEnd = input[max(start, scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = input.count
                if discardingLongLine || input.count - start >= limit {
                    discardingLongLine = true
                    start = input.count
                }
                break
            }
            let lineStart = start
            start = lineEnd + 1
            if discardingLongLine || lineEnd + 1 - lineStart > limit {
                discardingLongLine = false
                reply(.lineTooLong)
                continue
            }
            // Only CRLF ends a command (RFC 5321 section 2.3.8), as only CRLF ends a line of message text.
            guard lineEnd > lineStart && input[lineEnd - 1] == UInt8(ascii: "\r") else {
                reply(.bareLineFeed)
                continue
            }
            if authMechanism != nil {
                continueAuthentication(input[lineStart..<(lineEnd - 1)], into: &actions)
                continue
            }
            execute(SMTPCommand.parse(input[lineStart..<(lineEnd - 1)]), into: &actions)
        }
        if wantsTLS {
            input = []  // pipelined after STARTTLS: never carried into the TLS session (RFC 3207 section 4.2)
            scanned = 0
        } else if isOpen {
            input.removeFirst(start)
            scanned = max(0, scanned - start)
        } else {
            input = []  // the session ends: what is left is never parsed
            scanned = 0
        }
    }

    // MARK: - Commands

    /// Carries out `command`; `checked` when the failure-injection rules were asked already (a stall is over).
    private mutating func execute(_ command: SMTPCommand, checked: Bool = false, into actions: inout [ConnectionAction]) {
        let configuration = shared.configuration
        switch command {
        case .helo(let domain), .ehlo(let domain):
            if !checked, let fault = chaos(SMTPChaosPoint(.helo)) {
                return inject(fault, resume: .command(command), into: &actions)
            }
            greeted = true
            heloName = domain
            if case .ehlo = command { extended = true } else { extended = false }
            endTransaction()
            if case .ehlo = command {
                lifecycle.output.append(
                    shared.ehloReply(startTLS: configuration.tls != nil && !secured, auth: offersAuthentication))
            } else {
                lifecycle.output.append(shared.heloReply)
            }
        case .starttls:
            if configuration.tls == nil { return reply(.notImplemented) }
            if secured { return reply(.tlsActive) }
            reply(.readyForTLS)
            wantsTLS = true
            greeted = false
            endTransaction()
        case .auth(let mechanism, let initialResponse):
            startAuthentication(mechanism, initialResponse, into: &actions)
        case .mail(let path, let declaredSize, let dsn):
            if !greeted { return reply(.needHello) }
            if !configuration.submission && !dsn.isEmpty { return reply(.unsupportedParameter) }
            if configuration.requiresAuthentication && authenticatedAs == nil { return reply(.authRequired) }
            if transaction != nil { return reply(.nestedMail) }
            if let declaredSize, declaredSize > configuration.maxMessageBytes { return reply(.tooLarge) }
            if !checked, let fault = chaos(SMTPChaosPoint(.mail, mailFrom: path)) {
                return inject(fault, resume: .command(command), into: &actions)
            }
            if let signIn {
                // A submission: the sink checks the credential again and says whether this mailbox sends from `path`.
                pending = .confirmation(mailFrom: path, dsn: dsn)
                return actions.append(.perform(Job(.admit(mailFrom: path, signIn: signIn))))
            }
            if let identity = authenticatedAs {
                // The credential may have been revoked since AUTH: each transaction asks the sink again.
                pending = .confirmation(mailFrom: path, dsn: dsn)
                return actions.append(.perform(Job(.confirm(identity: identity))))
            }
            transaction = Transaction(mailFrom: path, dsn: dsn)
            reply(.senderOK)
        case .rcpt(let path, let dsn):
            guard let transaction else { return reply(.needMail) }
            if !configuration.submission && !dsn.isEmpty { return reply(.unsupportedParameter) }
            if transaction.recipients.contains(path) { return reply(.recipientOK) }
            if transaction.recipients.count >= configuration.maxRecipients {
                self.transaction?.replies.append(.init(address: path, code: SMTPReply.tooManyRecipients.code))
                return reply(.tooManyRecipients)
            }
            if !checked, let fault = chaos(SMTPChaosPoint(.rcpt, mailFrom: transaction.mailFrom, recipients: [path])) {
                if case .reply(let code, _, _) = fault { self.transaction?.replies.append(.init(address: path, code: code)) }
                return inject(fault, resume: .command(command), into: &actions)
            }
            pending = .verdict(recipient: path, dsn: dsn)
            actions.append(.perform(Job(.verdict(recipient: path))))
        case .data:
            guard let transaction else { return reply(.needMail) }
            if transaction.recipients.isEmpty { return reply(.needRecipient) }
            if !checked,
                let fault = chaos(SMTPChaosPoint(.data, mailFrom: transaction.mailFrom, recipients: transaction.recipients))
            {
                return inject(fault, resume: .command(command), into: &actions)
            }
            reader = SMTPDataReader(limit: configuration.maxMessageBytes, budget: configuration.buffers)
            reply(.startData)
        case .rset:
            endTransaction()
            reply(.ok)
        case .noop:
            reply(.ok)
        case .quit:
            endTransaction()
            finish(with: .bye)
        case .vrfy:
            reply(.cannotVerify)
        case .notImplemented:
            reply(.notImplemented)
        case .unknown:
            reply(.unrecognized)
        case .invalid(let answer):
            reply(answer)
        }
    }

    /// The end mark was read: refuse an oversized message, or hand the message to the sink (unless an `after-data`
    /// rule fires first; `checked` when the rules were asked already).
    private mutating func messageEnded(
        _ reader: SMTPDataReader, checked: Bool = false, into actions: inout [ConnectionAction]
    ) {
        if !reader.overflowed { self.transaction?.size = reader.text.count }
        guard let transaction, !reader.overflowed else {
            endTransaction(result: .tooLarge)
            shared.observer?(.messageRefused(.tooLarge))
            return reply(.tooLarge)
        }
        guard !reader.starved else {
            // Every session's messages together are at the process's budget: try again later (RFC 5321 §4.2.5).
            endTransaction(result: .insufficientStorage)
            return reply(.insufficientStorage)
        }
        if !checked,
            let fault = chaos(SMTPChaosPoint(.afterData, mailFrom: transaction.mailFrom, recipients: transaction.recipients))
        {
            switch fault {
            case .reply(let code, let enhanced, let text):
                // Nothing is stored: the transaction ends with the injected reply, as a refused message's does.
                let answer = Self.injected(code, enhanced, text)
                endTransaction(result: answer)
                return code == 421 ? finish(with: answer) : reply(answer)
            case .disconnect:
                return disconnect(into: &actions)
            case .stall:
                stalledMessage = reader
                return inject(fault, resume: .messageEnded, into: &actions)
            }
        }
        pending = .delivery(bytes: reader.text.count, recipients: transaction.recipients.count)
        delivering = reader.reservation  // the text is held until it is stored
        let envelope = SMTPEnvelope(
            mailFrom: transaction.mailFrom, recipients: transaction.recipients, remoteAddress: peer,
            authenticatedAs: authenticatedAs, heloName: heloName, extended: extended, secured: secured, signIn: signIn,
            dsn: transaction.dsn, recipientDSN: transaction.recipientDSN)
        actions.append(.perform(Job(.deliver(envelope, data: reader.text))))
    }

    /// The sink answered: reply, then go on with buffered commands.
    private mutating func complete(_ outcome: Completion.Outcome, into actions: inout [ConnectionAction]) {
        if case .delivery? = pending { delivering = nil }
        switch (pending, outcome) {
        case (.verdict(let recipient, let dsn)?, .verdict(let verdict)):
            pending = nil
            let answer: SMTPReply
            switch verdict {
            case .accept:
                transaction?.recipients.append(recipient)
                transaction?.recipientDSN.append(dsn)
                answer = .recipientOK
            case .unknownLocal:
                shared.observer?(.recipientRefused(verdict))
                answer = .unknownLocal
            case .relayDenied:
                shared.observer?(.recipientRefused(verdict))
                answer = .relayDenied
            }
            transaction?.replies.append(.init(address: recipient, code: answer.code))
            reply(answer)
        case (.delivery(let bytes, let recipients)?, .delivered(let queueID)):
            pending = nil
            let answer = SMTPReply.queued(queueID)
            endTransaction(result: answer, messageID: queueID)
            shared.observer?(.messageStored(bytes: bytes, recipients: recipients))
            reply(answer)
        case (.delivery?, .deliveryFailed):
            pending = nil
            endTransaction(result: .notStored)
            shared.observer?(.messageRefused(.notStored))
            reply(.notStored)
        case (.authentication?, .authenticated(let identity, let scope)):
            pending = nil
            authenticatedAs = identity
            if identity == nil {
                authenticationFailed()
            } else {
                if shared.configuration.chaos?.scoping == .authenticatedUser { chaosScope = scope.map { .user($0) } }
                if let fault = chaos(SMTPChaosPoint(.auth)) {
                    // Refused or dropped here, the session is not authenticated; a stall answers 235 after it.
                    if case .stall = fault {} else { authenticatedAs = nil }
                    inject(fault, resume: .authenticated, into: &actions)
                } else {
                    reply(.authenticated)
                }
            }
        case (.authentication?, .signedIn(let outcome)):
            pending = nil
            signedIn(outcome)
        case (.confirmation(let mailFrom, let dsn)?, .admitted(let verdict)):
            pending = nil
            switch verdict {
            case .accept:
                transaction = Transaction(mailFrom: mailFrom, dsn: dsn)
                reply(.senderOK)
            case .signInEnded:
                signIn = nil
                authenticatedAs = nil  // the session must AUTH again, with a credential that is still good
                reply(.authRequired)
            case .refused(let refusal):
                reply(refusal.reply)
            }
        case (.confirmation(let mailFrom, let dsn)?, .confirmed(let live)):
            pending = nil
            if live {
                transaction = Transaction(mailFrom: mailFrom, dsn: dsn)
                reply(.senderOK)
            } else {
                authenticatedAs = nil  // the session must AUTH again, with a credential that is still good
                reply(.authRequired)
            }
        case (.stall(let resume)?, .stalled):
            pending = nil
            switch resume {
            case .greeting: lifecycle.output.append(shared.greeting)
            case .command(let command): execute(command, checked: true, into: &actions)
            case .authenticated: reply(.authenticated)
            case .messageEnded:
                guard let message = stalledMessage else { return close(into: &actions) }
                stalledMessage = nil
                messageEnded(message, checked: true, into: &actions)
            }
        case (.delivery?, .refused(let refusal)):
            pending = nil
            shared.observer?(.messageRefused(.refused(refusal)))
            let answer: SMTPReply
            switch refusal {
            case .mailboxFull: answer = .mailboxFull
            case .unreadableContent: answer = .unreadableContent
            case .noSuchRecipient: answer = .unknownLocal
            case .reply(let sinkReply): answer = sinkReply.reply
            }
            endTransaction(result: answer)
            reply(answer)
        default:
            return close(into: &actions)  // an answer to nothing asked: the service is broken
        }
        process(into: &actions)
    }

    /// The transport under the session finished the TLS handshake: the session starts over (RFC 3207 section 4.2:
    /// the client greets again, and nothing learnt in plaintext, AUTH included, carries over).
    public mutating func tlsEstablished() {
        wantsTLS = false
        secured = true
        greeted = false
        heloName = ""
        extended = false
        transaction = nil
        authenticatedAs = nil
        signIn = nil
        authMechanism = nil
        bearerRefusalSent = false
        input = []
        scanned = 0
    }

    // MARK: - Failure injection

    /// What the session's failure-injection rules do at `point`: one branch when injection is off, one atomic load
    /// when nothing is set.
    func chaos(_ point: @autoclosure () -> SMTPChaosPoint) -> SMTPChaosRule.Action? {
        guard let target = shared.configuration.chaos, target.chaos.isArmed, let scope = chaosScope else { return nil }
        return target.chaos.decide(point(), in: scope)
    }

    /// Carries out `fault` instead of the stage's own answer: the reply (a `421` then closes), the disconnect, or the
    /// stall after which the session does `resume`.
    mutating func inject(_ fault: SMTPChaosRule.Action, resume: ChaosResume, into actions: inout [ConnectionAction]) {
        switch fault {
        case .reply(let code, let enhanced, let text):
            let answer = Self.injected(code, enhanced, text)
            if code == 421 || resume == .greeting { finish(with: answer) } else { reply(answer) }
        case .disconnect:
            disconnect(into: &actions)
        case .stall(let seconds):
            pending = .stall(then: resume)
            actions.append(.perform(Job(.stall(seconds: seconds))))
        }
    }

    /// An injected disconnect: the replies already queued (to pipelined commands before this one) are written, then
    /// the connection closes with no word of its own; nothing after it is read, and a message read is dropped.
    mutating func disconnect(into actions: inout [ConnectionAction]) {
        if lifecycle.output.isEmpty { return close(into: &actions) }
        lifecycle.closeAfterOutput()
        reader = nil
        endTransaction()
    }

    /// An injected reply's line: the code, the enhanced code when given, the text (or that it was injected).
    static func injected(_ code: Int, _ enhanced: SMTPChaosRule.EnhancedCode?, _ text: String) -> SMTPReply {
        SMTPReply(code, [enhanced?.description, text.isEmpty ? "Failure injected" : text].compactMap { $0 }.joined(separator: " "))
    }

    /// Queues `answer`; too many protocol errors end the session.
    mutating func reply(_ answer: SMTPReply) {
        lifecycle.output.append(answer.bytes)
        guard answer.isProtocolError else { return }
        protocolErrors += 1
        if protocolErrors >= shared.configuration.maxProtocolErrors { finish(with: .tooManyErrors) }
    }

    /// Queues the last reply; once written the session lingers and closes.
    mutating func finish(with answer: SMTPReply) {
        lifecycle.output.append(answer.bytes)
        lifecycle.closeAfterOutput()
        reader = nil
        endTransaction()
    }

    /// Ends the open transaction, if any, and reports its record (the log line): `result` is the reply that ended
    /// its message, nil when it ended before one.
    private mutating func endTransaction(result: SMTPReply? = nil, messageID: String? = nil) {
        guard let ended = transaction else { return }
        transaction = nil
        shared.observer?(
            .transactionEnded(
                SMTPTransactionRecord(
                    client: peer, mailFrom: ended.mailFrom, recipients: ended.replies, messageID: messageID,
                    size: ended.size, result: result?.code)))
    }

    // MARK: - Output, timers and closing

    /// Everything queued was written.
    private mutating func outputDrained(now: UInt64, into actions: inout [ConnectionAction]) {
        switch lifecycle.stage {
        case .closingAfterOutput:
            lifecycle.linger(now: now, into: &actions)  // closes at once when the client has closed
            if lifecycle.isClosed { close(into: &actions) }
        case .open:
            process(into: &actions)
            if lifecycle.peerClosed && pending == nil && lifecycle.output.isEmpty && isOpen {
                close(into: &actions)
            }
        case .abandoning, .lingering, .closed:
            break
        }
    }

    /// When the current wait times out, or nil while the sink works (the lifecycle's linger deadline aside).
    private var deadline: UInt64? {
        switch lifecycle.stage {
        case .closingAfterOutput: return lastActivity &+ shared.writeTimeout
        case .open:
            if lifecycle.writeBlocked { return lastActivity &+ shared.writeTimeout }
            return pending == nil ? min(lastActivity &+ shared.commandTimeout, sessionDeadline) : nil
        case .abandoning, .lingering, .closed: return nil
        }
    }

    private mutating func timerFired(now: UInt64, into actions: inout [ConnectionAction]) {
        if timerFiredWhileLingering(now: now, into: &actions) { return }
        guard let deadline, now >= deadline else { return }
        if !isOpen || lifecycle.writeBlocked { return close(into: &actions) }
        lastActivity = now  // the write timeout of the last reply runs from here
        finish(with: now >= sessionDeadline ? .sessionTooLong : .timeout)
    }

    /// When the session must end, however busy it keeps.
    private var sessionDeadline: UInt64 { openedAt &+ shared.sessionLimit }

    /// Closes the session (or forgets what it held, when the lifecycle closed it already).
    package mutating func close(into actions: inout [ConnectionAction]) {
        if !lifecycle.isClosed { lifecycle.close(into: &actions) }
        input = []
        reader = nil
        stalledMessage = nil
        delivering = nil
        if pending == nil { endTransaction() }
    }
}
