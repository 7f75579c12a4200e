import POP3
import SASL

// libFuzzer entry for the IMAP protocol core (Sources/IMAP, pure) and POP3's session (Sources/POP3, pure). Built by
// scripts/fuzz together with the IMAP target's files (over Time, BufferBudget, SASL, MailDoor and POP3, compiled
// first) into one module; not part of the SwiftPM package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. The command framer never crashes; it gives the same events whether the input comes whole or one byte at a time;
//    no command it gives is longer than the text limit plus the literal limit.
// 2. The parser never crashes on a framed command; a command it parses has a non-empty tag; a failure's BAD text is
//    one of its fixed texts (it never echoes the input).
// 3. A session fed the input in pieces the input chooses, with a driver that answers every request at once (sign-ins
//    alternately accepted and refused, commands OK, IDLE fed a change, STARTTLS completed), never crashes; all it
//    sends is whole lines (CRLF-terminated); nothing follows `closeConnection`; the input it holds stays within its
//    buffer limit plus one piece.
// 4. A POP3 session fed the same way, with a driver that answers at once (a two-message maildrop), never crashes;
//    all it sends is whole lines; nothing follows `closeConnection`.

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

private let limits: IMAPLimits = {
    var limits = IMAPLimits()
    limits.maxLineBytes = 256
    limits.maxLiteralBytes = 512
    limits.maxNonSynchronizingLiteralBytes = 64
    limits.maxNestingDepth = 8
    limits.maxSequenceSetRanges = 16
    limits.maxPipelinedCommands = 4
    limits.maxBufferedInputBytes = 512
    return limits
}()

private func events(_ input: [UInt8], byteByByte: Bool) -> [IMAPFramerEvent] {
    var framer = IMAPCommandFramer(limits: limits)
    var events: [IMAPFramerEvent] = []
    for piece in byteByByte ? input.map({ [$0] }) : [input] {
        var index = 0
        while let event = framer.next(piece, from: &index) { events.append(event) }
        require(index == piece.count, "the framer left bytes unread")
    }
    return events
}

private let fixedTexts: Set<String> = {
    let errors: [IMAPCommandError] = [
        .lineTooLong, .literalTooLarge, .nonSynchronizingLiteralTooLarge, .nestingTooDeep, .sequenceSetTooLarge,
        .invalidTag, .unknownCommand, .invalidUTF8, .wrongState, .emptyCommand,
    ]
    return Set(errors.map(\.text))
}()

/// A driver that answers at once, and the session's output checked as it comes.
private struct Driver {
    var session: IMAPSession
    var closed = false
    var signIns = 0

    mutating func apply(_ actions: [IMAPSession.Action]) {
        var answers: [IMAPSession.Action] = []
        for action in actions {
            require(!closed, "an action after closeConnection")
            switch action {
            case .send(let bytes):
                require(
                    bytes.count >= 2 && bytes[bytes.count - 2] == 13 && bytes[bytes.count - 1] == 10,
                    "output that is not whole lines")
            case .closeConnection:
                closed = true
            case .perform(let request):
                answer(request, into: &answers)
            }
        }
        if !answers.isEmpty { apply(answers) }
    }

    mutating func answer(_ request: IMAPRequest, into actions: inout [IMAPSession.Action]) {
        switch request {
        case .login, .authenticate:
            signIns += 1
            session.authenticated(
                signIns % 2 == 0
                    ? .succeeded(user: "u")
                    : .failed(
                        .authenticationFailed,
                        errorChallenge: SASLMessage(base64: "e30=")), now: 0, into: &actions)
        case .run(let command, _):
            var responses: [IMAPUntaggedResponse] = []
            if case .fetch = command.kind { responses = [.fetch(1, [.uid(1), .flags([.seen])])] }
            session.completed(
                IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, "done")), now: 0, into: &actions)
        case .idleStarted:
            session.notify([.exists(1)], into: &actions)
        case .idleEnded:
            break
        case .continueCommand:
            break  // never asked: every answer this driver gives is whole
        case .startTLS:
            session.tlsEstablished(now: 0, into: &actions)
        }
    }
}

/// POP3's driver: sign-ins alternately accepted and refused, messages retrieved, deletions committed.
private struct POP3Driver {
    var session: POP3Session
    var closed = false
    var signIns = 0

    mutating func apply(_ actions: [POP3Session.Action]) {
        var answers: [POP3Session.Action] = []
        for action in actions {
            require(!closed, "a POP3 action after closeConnection")
            switch action {
            case .send(let bytes):
                require(
                    bytes.count >= 2 && bytes[bytes.count - 2] == 13 && bytes[bytes.count - 1] == 10,
                    "POP3 output that is not whole lines")
            case .closeConnection:
                closed = true
            case .perform(.login), .perform(.authenticate):
                signIns += 1
                let maildrop = [POP3Message(uid: "a", size: 20), POP3Message(uid: "b", size: 3)]
                session.authenticated(
                    signIns % 2 == 0 ? .succeeded(user: "u", maildrop: maildrop) : .failed(.auth),
                    now: 0, into: &answers)
            case .perform(.retrieve):
                session.retrieved(Array("Subject: x\r\n\r\n.a\r\nb\n".utf8), now: 0, into: &answers)
            case .perform(.commitDeletions):
                session.committed(true, now: 0, into: &answers)
            case .perform(.startTLS):
                session.tlsEstablished(now: 0, into: &answers)
            }
        }
        if !answers.isEmpty { apply(answers) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIMAPCommands(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))

    let whole = events(input, byteByByte: false)
    require(whole == events(input, byteByByte: true), "whole and byte-by-byte framing differ")
    for event in whole {
        guard case .command(let bytes) = event else { continue }
        require(bytes.count <= limits.maxLineBytes + limits.maxLiteralBytes + 64, "a command past its limits")
        do {
            let command = try IMAPCommandParser.parse(bytes, limits: limits)
            require(!command.tag.isEmpty, "a command without a tag")
        } catch {
            if case .syntax = error.error { continue }
            require(fixedTexts.contains(error.error.text), "a BAD text that is not fixed")
        }
    }

    var configuration = IMAPSessionConfiguration()
    configuration.limits = limits
    configuration.startTLSAvailable = true
    configuration.mechanisms = ["PLAIN", "OAUTHBEARER"]
    configuration.allowsPlaintextAuthentication = input.first.map { $0 & 1 == 1 } ?? false
    var driver = Driver(session: IMAPSession(configuration: configuration, now: 0))
    var actions: [IMAPSession.Action] = []
    driver.session.start(into: &actions)
    driver.apply(actions)
    let piece = max(1, Int(input.first ?? 1) % 64)
    var offset = 0
    while offset < input.count && !driver.closed {
        let end = min(input.count, offset + piece)
        actions = []
        driver.session.receive(input[offset..<end], now: UInt64(offset), into: &actions)
        driver.apply(actions)
        while driver.session.hasBufferedInput && !driver.closed {
            actions = []
            driver.session.resume(now: UInt64(offset), into: &actions)
            driver.apply(actions)
        }
        offset = end
    }
    actions = []
    driver.session.timerFired(now: UInt64.max / 2, into: &actions)
    driver.apply(actions)
    require(driver.closed || driver.session.deadline == nil, "a session past its deadline still open")

    var popConfiguration = POP3SessionConfiguration()
    popConfiguration.limits.maxLineBytes = 64
    popConfiguration.limits.maxSASLLineBytes = 128
    popConfiguration.limits.maxPipelinedCommands = 4
    popConfiguration.startTLSAvailable = true
    popConfiguration.allowsPlaintextAuthentication = configuration.allowsPlaintextAuthentication
    var pop = POP3Driver(session: POP3Session(configuration: popConfiguration, now: 0))
    var popActions: [POP3Session.Action] = []
    pop.session.start(into: &popActions)
    pop.apply(popActions)
    offset = 0
    while offset < input.count && !pop.closed {
        let end = min(input.count, offset + piece)
        popActions = []
        pop.session.receive(input[offset..<end], now: 0, into: &popActions)
        pop.apply(popActions)
        while pop.session.hasBufferedInput && !pop.closed {
            popActions = []
            pop.session.resume(now: 0, into: &popActions)
            pop.apply(popActions)
        }
        offset = end
    }
    return 0
}
