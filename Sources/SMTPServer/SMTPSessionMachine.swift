import SocketServer

/// The SMTP rules of one session (RFC 5321, the subset a local catch-all needs) as a pure state
/// machine: bytes, write progress, timers and the sink's answers in; writes, interest changes, timers,
/// jobs for the sink and closes out.
///
/// Commands are taken one at a time, in order, from whatever has been read, so pipelined commands
/// (RFC 2920) are answered in order. A command that needs the sink (`RCPT TO` asks for a verdict, the
/// end of the message text asks for delivery) pauses reading and parsing until its job completes; the
/// answer to a message is `250` only once the sink reports it durably stored. Parsing also pauses while
/// the socket does not take output or unsent output is above `outputHighWater` (back-pressure). After
/// the last reply (`QUIT`, a timeout, shutdown, a refusal) the sending side is shut and the input
/// drained for `lingerNanoseconds`, so that unread input does not reset the connection before the
/// client has read the reply.
public struct SMTPSessionMachine: ConnectionStateMachine {
    /// Where the session is in its life.
    enum Phase: Equatable {
        /// Taking commands and message text.
        case open
        /// The last reply is in the output; once written, linger.
        case closingAfterOutput
        /// Our side is shut; input is drained until the peer closes or the deadline.
        case lingering(until: UInt64)
        /// Closed; no more events.
        case closed
    }

    /// What the session waits for from the sink.
    enum Pending: Equatable {
        case verdict(recipient: String)
        /// A message of `bytes` bytes for `recipients` recipients is being stored.
        case delivery(bytes: Int, recipients: Int)
    }

    /// A mail transaction: from `MAIL FROM` to the end of the message, `RSET` or a new `HELO`/`EHLO`.
    struct Transaction: Equatable {
        var mailFrom: String
        var recipients: [String] = []
    }

    /// Unsent output above which parsing pauses until the socket takes it.
    public static var outputHighWater: Int { 64 * 1024 }
    /// How long a closing session drains the client's bytes before the socket is closed.
    public static var lingerNanoseconds: UInt64 { 2_000_000_000 }

    let shared: SMTPSessionShared
    let peer: String
    let refusing: Bool
    var output = OutputBuffer()
    /// Bytes read and not yet parsed.
    var input: [UInt8] = []
    /// How much of `input` is known to hold no line end.
    var scanned = 0
    private(set) var phase = Phase.open
    /// `HELO` or `EHLO` was accepted.
    private(set) var greeted = false
    private(set) var transaction: Transaction?
    /// Set between `354` and the end mark.
    var reader: SMTPDataReader?
    /// A command line over the limit is being skipped to its end.
    var discardingLongLine = false
    private(set) var pending: Pending?
    private(set) var protocolErrors = 0
    /// The server is shutting down: the next idle moment says 421 and closes.
    private(set) var stopping = false
    /// The client shut its sending side: answer what was asked, then close.
    private(set) var peerClosed = false
    /// The socket took no more output; waiting for `writable`.
    private(set) var writeBlocked = false
    /// The last read, write progress or completion, from which the timeouts run.
    private(set) var lastActivity: UInt64 = 0
    /// When the session opened, from which `maxSessionDuration` runs.
    private(set) var openedAt: UInt64 = 0
    /// What the loop was last told, so that only changes become actions.
    private var announcedRead = true
    private var announcedWrite = false
    private var announcedDeadline: UInt64?

    /// Creates the machine of a new session from `peer`.
    /// - Parameters:
    ///   - shared: the server's limits and fixed replies.
    ///   - peer: the socket peer's IP address as text (the envelope's `remoteAddress`).
    ///   - refusing: over the connection cap: answer `421` at once and close.
    public init(shared: SMTPSessionShared, peer: String, refusing: Bool) {
        self.shared = shared
        self.peer = peer
        self.refusing = refusing
    }

    public var hasUnsentOutput: Bool { !output.isEmpty }

    public func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try output.withUnsentBytes(body)
    }

    public mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard phase != .closed else { return }
        switch event {
        case .opened:
            lastActivity = now
            openedAt = now
            if refusing {
                shared.observer?(.sessionRefused)
                finish(with: .tooManyConnections)
            } else {
                output.append(shared.greeting)
            }
        case .bytesRead(let bytes):
            lastActivity = now
            guard phase == .open else { break }  // lingering or closing: drained, never parsed
            input.append(contentsOf: bytes)
            process(into: &actions)
        case .readEOF:
            peerClosed = true
            if case .lingering = phase { return close(into: &actions) }
            if phase == .open && pending == nil && output.isEmpty { return close(into: &actions) }
        case .wrote(let count):
            output.consume(count)
            writeBlocked = false
            lastActivity = now
            if output.isEmpty { outputDrained(now: now, into: &actions) }
        case .writeBlocked:
            if !writeBlocked {
                writeBlocked = true
                lastActivity = now
            }
        case .writable:
            writeBlocked = false
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
        guard phase != .closed else { return }
        if stopping && phase == .open && pending == nil && reader == nil {
            // Idle between commands: say so and close. A message being read or stored finishes first.
            finish(with: .shuttingDown)
        }
        // After `wrote`, the loop goes on writing by itself.
        if case .wrote = event {} else if !output.isEmpty && !writeBlocked { actions.append(.write) }
        announce(into: &actions)
    }

    // MARK: - Input

    /// Parses and answers buffered input until it runs out or something must be waited for.
    private mutating func process(into actions: inout [ConnectionAction]) {
        let limit = shared.configuration.maxCommandLineLength
        var start = 0
        while phase == .open && pending == nil && !writeBlocked && output.unsentCount < Self.outputHighWater
            && start < input.count
        {
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
            execute(SMTPCommand.parse(input[lineStart..<(lineEnd - 1)]), into: &actions)
        }
        if phase == .open {
            input.removeFirst(start)
            scanned = max(0, scanned - start)
        } else {
            input = []  // the session ends: what is left is never parsed
            scanned = 0
        }
    }

    // MARK: - Commands

    private mutating func execute(_ command: SMTPCommand, into actions: inout [ConnectionAction]) {
        let configuration = shared.configuration
        switch command {
        case .helo, .ehlo:
            greeted = true
            transaction = nil
            if case .ehlo = command { output.append(shared.ehloReply) } else { output.append(shared.heloReply) }
        case .mail(let path, let declaredSize):
            if !greeted { return reply(.needHello) }
            if transaction != nil { return reply(.nestedMail) }
            if let declaredSize, declaredSize > configuration.maxMessageBytes { return reply(.tooLarge) }
            transaction = Transaction(mailFrom: path)
            reply(.senderOK)
        case .rcpt(let path):
            guard let transaction else { return reply(.needMail) }
            if transaction.recipients.contains(path) { return reply(.recipientOK) }
            if transaction.recipients.count >= configuration.maxRecipients { return reply(.tooManyRecipients) }
            pending = .verdict(recipient: path)
            actions.append(.perform(Job(.verdict(recipient: path))))
        case .data:
            guard let transaction else { return reply(.needMail) }
            if transaction.recipients.isEmpty { return reply(.needRecipient) }
            reader = SMTPDataReader(limit: configuration.maxMessageBytes)
            reply(.startData)
        case .rset:
            transaction = nil
            reply(.ok)
        case .noop:
            reply(.ok)
        case .quit:
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

    /// The end mark was read: refuse an oversized message, or hand the message to the sink.
    private mutating func messageEnded(_ reader: SMTPDataReader, into actions: inout [ConnectionAction]) {
        guard let transaction, !reader.overflowed else {
            self.transaction = nil
            shared.observer?(.messageRefused(.tooLarge))
            return reply(.tooLarge)
        }
        pending = .delivery(bytes: reader.text.count, recipients: transaction.recipients.count)
        let envelope = SMTPEnvelope(
            mailFrom: transaction.mailFrom, recipients: transaction.recipients, remoteAddress: peer)
        actions.append(.perform(Job(.deliver(envelope, data: reader.text))))
    }

    /// The sink answered: reply, then go on with buffered commands.
    private mutating func complete(_ outcome: Completion.Outcome, into actions: inout [ConnectionAction]) {
        switch (pending, outcome) {
        case (.verdict(let recipient)?, .verdict(let verdict)):
            pending = nil
            switch verdict {
            case .accept:
                transaction?.recipients.append(recipient)
                reply(.recipientOK)
            case .unknownLocal:
                shared.observer?(.recipientRefused(verdict))
                reply(.unknownLocal)
            case .relayDenied:
                shared.observer?(.recipientRefused(verdict))
                reply(.relayDenied)
            }
        case (.delivery(let bytes, let recipients)?, .delivered(let queueID)):
            pending = nil
            transaction = nil
            shared.observer?(.messageStored(bytes: bytes, recipients: recipients))
            reply(.queued(queueID))
        case (.delivery?, .deliveryFailed):
            pending = nil
            transaction = nil
            shared.observer?(.messageRefused(.notStored))
            reply(.notStored)
        case (.delivery?, .refused(let refusal)):
            pending = nil
            transaction = nil
            shared.observer?(.messageRefused(.refused(refusal)))
            switch refusal {
            case .mailboxFull: reply(.mailboxFull)
            case .unreadableContent: reply(.unreadableContent)
            case .noSuchRecipient: reply(.unknownLocal)
            }
        default:
            return close(into: &actions)  // an answer to nothing asked: the service is broken
        }
        process(into: &actions)
    }

    /// Queues `answer`; too many protocol errors end the session.
    private mutating func reply(_ answer: SMTPReply) {
        output.append(answer.bytes)
        guard answer.isProtocolError else { return }
        protocolErrors += 1
        if protocolErrors >= shared.configuration.maxProtocolErrors { finish(with: .tooManyErrors) }
    }

    /// Queues the last reply; once written the session lingers and closes.
    private mutating func finish(with answer: SMTPReply) {
        output.append(answer.bytes)
        phase = .closingAfterOutput
        reader = nil
        transaction = nil
    }

    // MARK: - Output, timers and closing

    /// Everything queued was written.
    private mutating func outputDrained(now: UInt64, into actions: inout [ConnectionAction]) {
        switch phase {
        case .closingAfterOutput:
            if peerClosed { return close(into: &actions) }
            phase = .lingering(until: now &+ Self.lingerNanoseconds)
            actions.append(.shutdownWrite)
        case .open:
            process(into: &actions)
            if peerClosed && pending == nil && output.isEmpty && phase == .open { close(into: &actions) }
        case .lingering, .closed:
            break
        }
    }

    /// When the current wait times out, or nil while the sink works.
    private var deadline: UInt64? {
        switch phase {
        case .lingering(let until): return until
        case .closingAfterOutput: return lastActivity &+ shared.writeTimeout
        case .open:
            if writeBlocked { return lastActivity &+ shared.writeTimeout }
            return pending == nil ? min(lastActivity &+ shared.commandTimeout, sessionDeadline) : nil
        case .closed: return nil
        }
    }

    private mutating func timerFired(now: UInt64, into actions: inout [ConnectionAction]) {
        guard let deadline, now >= deadline else { return }
        if phase != .open || writeBlocked { return close(into: &actions) }
        lastActivity = now  // the write timeout of the last reply runs from here
        finish(with: now >= sessionDeadline ? .sessionTooLong : .timeout)
    }

    /// When the session must end, however busy it keeps.
    private var sessionDeadline: UInt64 { openedAt &+ shared.sessionLimit }

    private mutating func close(into actions: inout [ConnectionAction]) {
        phase = .closed
        output.clear()
        input = []
        reader = nil
        actions.append(.close)
    }

    /// Tells the loop about changes of interest and deadline.
    private mutating func announce(into actions: inout [ConnectionAction]) {
        let read: Bool
        switch phase {
        case .lingering: read = true
        case .open:
            read = !peerClosed && !writeBlocked && pending == nil && output.unsentCount < Self.outputHighWater
        case .closingAfterOutput, .closed: read = false
        }
        if read != announcedRead || writeBlocked != announcedWrite {
            announcedRead = read
            announcedWrite = writeBlocked
            actions.append(.setInterest(read: read, write: writeBlocked))
        }
        let deadline = self.deadline
        if deadline != announcedDeadline {
            announcedDeadline = deadline
            actions.append(deadline.map { .armTimer(deadline: $0) } ?? .cancelTimer)
        }
    }
}
