import BufferBudget
import SocketServer
import Testing

@testable import SMTPServer

private let commandTimer = "timer(+300s)"
private let ehloReplies = [
    "250-mx.test", "250-SIZE 26214400", "250-8BITMIME", "250-PIPELINING", "250 ENHANCEDSTATUSCODES",
]

@Suite("SMTP session state machine, driven by events with a mock clock and no socket")
struct SMTPSessionMachineTests {
    @Test("open writes the greeting and arms the command timeout")
    func greeting() {
        var h = SessionHarness()
        #expect(h.send(.opened) == ["write", commandTimer])
        let (written, actions) = h.writeAll()
        #expect(written == "220 mx.test ESMTP Postern\r\n")
        #expect(actions.isEmpty)
    }

    @Test("a whole session, whole and byte by byte: recipients judged by the sink, dot-unstuffed 8-bit text stored")
    func wholeSession() {
        var input = Array(
            ("EHLO client.test\r\nMAIL FROM:<sender@remote.test> BODY=8BITMIME\r\nRCPT TO:<alice@local.test>\r\n"
                + "RCPT TO:<nobody@local.test>\r\nRCPT TO:<someone@elsewhere.test>\r\nRCPT TO:<Bob@local.test>\r\n"
                + "DATA\r\nSubject: t\r\n\r\n..leading dot\r\n..\r\nna\u{EF}ve ").utf8)
        input += [0xE9, 0xFF, 0x0D, 0x0A]  // raw 8-bit bytes, not UTF-8
        input += Array("bare\nLF and bare\rCR\r\n.\r\nRSET\r\nNOOP\r\nVRFY alice\r\nQUIT\r\n".utf8)
        let c = Conversation.both(bytes: input)
        #expect(
            c.lines == ["220 mx.test ESMTP Postern"] + ehloReplies + [
                "250 2.1.0 Ok", "250 2.1.5 Ok", "550 5.1.1 Mailbox unavailable: no such user here",
                "550 5.7.1 Relay not permitted", "250 2.1.5 Ok", "354 End data with <CR><LF>.<CR><LF>",
                "250 2.0.0 OK queued as Q1", "250 2.0.0 Ok", "250 2.0.0 Ok",
                "252 2.5.0 Cannot VRFY user, but will accept message and attempt delivery", "221 2.0.0 Bye",
            ])
        #expect(
            c.deliveries == [
                SMTPEnvelope(
                    mailFrom: "sender@remote.test", recipients: ["alice@local.test", "Bob@local.test"],
                    remoteAddress: "192.0.2.7", heloName: "client.test")
            ])
        var expected = Array("Subject: t\r\n\r\n.leading dot\r\n.\r\nna\u{EF}ve ".utf8)
        expected += [0xE9, 0xFF, 0x0D, 0x0A]
        expected += Array("bare\nLF and bare\rCR\r\n".utf8)
        #expect(c.messages == [expected])
        #expect(c.ended)
    }

    @Test("the observer hears of stored and refused messages and refused recipients")
    func observer() {
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nRCPT TO:<x@local.test>\r\n"
                + "RCPT TO:<x@far.test>\r\nDATA\r\nhello\r\n.\r\nMAIL FROM:<fail@remote.test>\r\n"
                + "RCPT TO:<bob@local.test>\r\nDATA\r\nx\r\n.\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<bob@local.test>\r\n"
                + "DATA\r\n\(String(repeating: "z", count: 200))\r\n.\r\n"
        ) { $0.maxMessageBytes = 100 }
        let counted = c.events.filter { if case .transactionEnded = $0 { false } else { true } }
        #expect(
            counted == [
                .recipientRefused(.unknownLocal), .recipientRefused(.relayDenied),
                .messageStored(bytes: 7, recipients: 1), .messageRefused(.notStored), .messageRefused(.tooLarge),
            ])
        var refused = SessionHarness(refusing: true)
        refused.send(.opened)
        #expect(refused.events.all == [.sessionRefused])
    }

    @Test("each transaction ends with one record: every RCPT's code, the queue id and size, or how it ended")
    func transactionRecords() {
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nRCPT TO:<x@local.test>\r\n"
                + "RCPT TO:<x@far.test>\r\nDATA\r\nhello\r\n.\r\nMAIL FROM:<fail@remote.test>\r\n"
                + "RCPT TO:<bob@local.test>\r\nDATA\r\nx\r\n.\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<bob@local.test>\r\n"
                + "DATA\r\n\(String(repeating: "z", count: 200))\r\n.\r\nMAIL FROM:<>\r\nRCPT TO:<x@far.test>\r\n"
                + "RSET\r\nMAIL FROM:<q@b.test>\r\nQUIT\r\n"
        ) { $0.maxMessageBytes = 100 }
        let records: [SMTPTransactionRecord] = c.events.compactMap {
            if case .transactionEnded(let record) = $0 { record } else { nil }
        }
        typealias R = SMTPTransactionRecord.RecipientReply
        #expect(
            records == [
                SMTPTransactionRecord(
                    client: "192.0.2.7", mailFrom: "a@b.test",
                    recipients: [
                        R(address: "alice@local.test", code: 250), R(address: "x@local.test", code: 550),
                        R(address: "x@far.test", code: 550),
                    ], messageID: "Q1", size: 7, result: 250),
                SMTPTransactionRecord(
                    client: "192.0.2.7", mailFrom: "fail@remote.test", recipients: [R(address: "bob@local.test", code: 250)],
                    size: 3, result: 451),
                SMTPTransactionRecord(
                    client: "192.0.2.7", mailFrom: "a@b.test", recipients: [R(address: "bob@local.test", code: 250)],
                    result: 552),
                SMTPTransactionRecord(
                    client: "192.0.2.7", mailFrom: "", recipients: [R(address: "x@far.test", code: 550)]),
                SMTPTransactionRecord(client: "192.0.2.7", mailFrom: "q@b.test", recipients: []),
            ])
    }

    @Test("HELO gets one line; commands are case-insensitive; MAIL FROM:<> (bounces) and postmaster are taken")
    func heloAndNullSender() {
        let c = Conversation.both("helo c\r\nmail from: <>\r\nrcpt to:<postmaster>\r\nrset\r\n")
        #expect(
            c.lines == [
                "220 mx.test ESMTP Postern", "250 mx.test", "250 2.1.0 Ok", "550 5.7.1 Relay not permitted",
                "250 2.0.0 Ok",
            ])
    }

    @Test("pipelined commands in one read are answered in order; a verdict pauses reading until the sink answers")
    func pipelining() {
        var h = SessionHarness()
        h.send(.opened)
        _ = h.writeAll()
        let actions = h.receive(
            "EHLO c\r\nMAIL FROM:<a@remote.test>\r\nRCPT TO:<alice@local.test>\r\nRCPT TO:<bob@local.test>\r\nDATA\r\n")
        #expect(
            actions == [
                "perform(verdict alice@local.test)", "write", "interest(read: false, write: false)", "cancelTimer",
            ])
        #expect(h.writeAll().written == (ehloReplies + ["250 2.1.0 Ok"]).joined(separator: "\r\n") + "\r\n")
        #expect(h.complete(.verdict(.accept)) == ["perform(verdict bob@local.test)", "write"])
        #expect(h.complete(.verdict(.accept)) == ["write", "interest(read: true, write: false)", commandTimer])
        #expect(h.writeAll().written == "250 2.1.5 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n")
    }

    @Test("the message is answered 250 only when the sink reports it stored; nothing is written before")
    func answeredAfterStored() {
        var h = SessionHarness { $0.maxSessionDuration = .seconds(7200) }  // the hour waited is the sink's
        h.send(.opened)
        h.receive("EHLO c\r\nMAIL FROM:<a@remote.test>\r\nRCPT TO:<alice@local.test>\r\n")
        h.complete(.verdict(.accept))
        h.receive("DATA\r\n")
        _ = h.writeAll()
        let actions = h.receive("hello\r\n.\r\nNOOP\r\n")
        #expect(
            actions == ["perform(deliver to alice@local.test)", "interest(read: false, write: false)", "cancelTimer"])
        #expect(!h.machine.hasUnsentOutput)
        h.advance(seconds: 3600)
        #expect(h.send(.timerFired).isEmpty)  // no timeout while the sink works
        #expect(
            h.complete(.delivered(queueID: "abc\r\n250 forged")) == [
                "write", "interest(read: true, write: false)", commandTimer,
            ])
        #expect(h.writeAll().written == "250 2.0.0 OK queued as abc250forged\r\n250 2.0.0 Ok\r\n")
    }

    @Test("a failed delivery is answered 451 4.3.0 and resets the transaction")
    func deliveryFailure() {
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<fail@remote.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\nx\r\n.\r\n"
                + "DATA\r\nRCPT TO:<alice@local.test>\r\n"
        )
        #expect(
            c.lines.suffix(4) == [
                "354 End data with <CR><LF>.<CR><LF>", "451 4.3.0 Error: message not stored, try again later",
                "503 5.5.1 Error: need MAIL command", "503 5.5.1 Error: need MAIL command",
            ])
        #expect(c.deliveries.count == 1)
    }

    @Test(
        "what the sink refuses for good is answered 5xx, never 451, and resets the transaction",
        arguments: [
            ("full", "552 5.2.2 Mailbox full", SMTPDeliveryRefusal.mailboxFull),
            ("bad", "554 5.6.0 Message content not accepted", .unreadableContent),
            ("gone", "550 5.1.1 Mailbox unavailable: no such user here", .noSuchRecipient),
        ])
    func permanentRefusal(sender: String, reply: String, refusal: SMTPDeliveryRefusal) {
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<\(sender)@remote.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\nx\r\n.\r\nDATA\r\n")
        #expect(c.lines.suffix(3) == ["354 End data with <CR><LF>.<CR><LF>", reply, "503 5.5.1 Error: need MAIL command"])
        #expect(c.events.contains(.messageRefused(.refused(refusal))))
    }

    @Test("SIZE over the limit at MAIL is refused 552; BODY=7BIT and a SIZE within it are taken")
    func declaredSize() {
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<a@b.test> SIZE=101\r\nMAIL FROM:<a@b.test> SIZE=100 BODY=7BIT\r\n"
        ) { $0.maxMessageBytes = 100 }
        #expect(
            c.lines == [
                "220 mx.test ESMTP Postern", "250-mx.test", "250-SIZE 100", "250-8BITMIME", "250-PIPELINING",
                "250 ENHANCEDSTATUSCODES", "552 5.3.4 Message size exceeds fixed maximum message size", "250 2.1.0 Ok",
            ])
    }

    @Test(
        "a message over the limit is read to its end, never handed to the sink, answered 552, and the session goes on")
    func messageTooLarge() {
        let body = String(repeating: "0123456789abcdef\r\n", count: 10)  // 180 bytes
        let fits = String(repeating: "0123456789abcdef\r\n", count: 5) + "12345678\r\n"  // 100 bytes
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\n\(body).\r\nNOOP\r\n"
                + "MAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\n\(fits).\r\n"
        ) { $0.maxMessageBytes = 100 }
        #expect(c.lines.contains("552 5.3.4 Message size exceeds fixed maximum message size"))
        #expect(
            c.lines.suffix(6) == [
                "552 5.3.4 Message size exceeds fixed maximum message size", "250 2.0.0 Ok", "250 2.1.0 Ok",
                "250 2.1.5 Ok",
                "354 End data with <CR><LF>.<CR><LF>", "250 2.0.0 OK queued as Q1",
            ])
        #expect(c.messages == [Array(fits.utf8)])  // exactly the limit is accepted
    }

    @Test("one recipient more than the limit is answered 452 4.5.3; a repeated recipient is not asked again")
    func tooManyRecipients() {
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nRCPT TO:<alice@local.test>\r\n"
                + "RCPT TO:<bob@local.test>\r\nRCPT TO:<carol@local.test>\r\nDATA\r\nx\r\n.\r\n"
        ) { $0.maxRecipients = 2 }
        #expect(
            c.lines.suffix(6) == [
                "250 2.1.5 Ok", "250 2.1.5 Ok", "250 2.1.5 Ok", "452 4.5.3 Error: too many recipients",
                "354 End data with <CR><LF>.<CR><LF>", "250 2.0.0 OK queued as Q1",
            ])
        #expect(c.deliveries.first?.recipients == ["alice@local.test", "bob@local.test"])
    }

    @Test("commands out of order are answered 503")
    func badSequence() {
        let c = Conversation.both(
            "MAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\nHELO c\r\nDATA\r\nMAIL FROM:<a@b.test>\r\n"
                + "DATA\r\nMAIL FROM:<a@b.test>\r\n")
        #expect(
            Array(c.lines.dropFirst()) == [
                "503 5.5.1 Error: send HELO/EHLO first", "503 5.5.1 Error: need MAIL command",
                "503 5.5.1 Error: need MAIL command", "250 mx.test", "503 5.5.1 Error: need MAIL command",
                "250 2.1.0 Ok",
                "503 5.5.1 Error: need RCPT command", "503 5.5.1 Error: nested MAIL command",
            ])
    }

    @Test("unknown commands 500, STARTTLS and AUTH 502, bad arguments 501, unknown parameters 555")
    func errors() {
        let c = Conversation.both(
            "EHLO\r\nFOO bar\r\nSTARTTLS\r\nAUTH PLAIN AGFiYwBkZWY=\r\nEHLO c\r\nMAIL FROM:a@b.test\r\nRSET\r\n"
                + "MAIL TO:<a@b.test>\r\nMAIL FROM:<a b@c>\r\nMAIL FROM:<a@b.test> SMTPUTF8\r\n"
                + "MAIL FROM:<a@b.test> SIZE=x\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<>\r\n"
                + "RCPT TO:<alice@local.test> NOTIFY=NEVER\r\nDATA now\r\nVRFY\r\n"
        )
        #expect(
            Array(c.lines.dropFirst()) == [
                "501 5.5.4 Syntax: EHLO hostname", "500 5.5.2 Error: command not recognized",
                "502 5.5.1 Error: command not implemented", "502 5.5.1 Error: command not implemented",
            ] + ehloReplies + [
                "250 2.1.0 Ok", "250 2.0.0 Ok", "501 5.5.4 Syntax: MAIL FROM:<address>",
                "501 5.5.4 Syntax: MAIL FROM:<address>",
                "555 5.5.4 Unsupported parameter", "501 5.5.4 Syntax: MAIL FROM:<address> SIZE=<bytes>", "250 2.1.0 Ok",
                "501 5.5.4 Syntax: RCPT TO:<address>", "555 5.5.4 Unsupported parameter", "501 5.5.4 Syntax: DATA",
                "501 5.5.4 Syntax: VRFY address",
            ])
    }

    @Test("a command line one byte over the limit is skipped to its end and answered 500; one at the limit is taken")
    func lineTooLong() {
        // "NOOP " + padding + CRLF: 1000 bytes is the limit.
        let atLimit = "NOOP " + String(repeating: "x", count: 993) + "\r\n"
        let over = "NOOP " + String(repeating: "x", count: 994) + "\r\n"
        let huge = "NOOP " + String(repeating: "y", count: 5000) + "\r\n"
        #expect(atLimit.utf8.count == 1000)
        let c = Conversation.both(atLimit + over + huge + "NOOP\r\n")
        #expect(
            Array(c.lines.dropFirst()) == [
                "250 2.0.0 Ok", "500 5.5.2 Error: line too long", "500 5.5.2 Error: line too long", "250 2.0.0 Ok",
            ])
    }

    @Test("too many protocol errors end the session with 421 4.7.0")
    func tooManyErrors() {
        let c = Conversation.both(String(repeating: "GET / HTTP/1.1\r\n", count: 5) + "NOOP\r\n") {
            $0.maxProtocolErrors = 3
        }
        #expect(
            Array(c.lines.dropFirst()) == [
                "500 5.5.2 Error: command not recognized", "500 5.5.2 Error: command not recognized",
                "500 5.5.2 Error: command not recognized", "421 4.7.0 Error: too many errors",
            ])
        #expect(c.ended)
    }

    @Test("the end mark split across reads and stuffed dots: only CRLF.CRLF ends the text")
    func endMark() {
        let text = "a\r\n.\nb\r\n.\rc\r\n..\r\n\r.\r\n\n.\n\r\n.x\r\n"
        let c = Conversation.both(
            "EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\n" + text + ".\r\n")
        #expect(c.messages == [Array("a\r\n\nb\r\n\rc\r\n.\r\n\r.\r\n\n.\n\r\nx\r\n".utf8)])
        let empty = Conversation.both("EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\n.\r\n")
        #expect(empty.messages == [[]])
    }

    @Test("idle past the command timeout: 421 4.4.2, then the sending side is shut and the input drained")
    func commandTimeout() {
        var h = SessionHarness { $0.commandTimeout = .seconds(60) }
        #expect(h.send(.opened) == ["write", "timer(+60s)"])
        _ = h.writeAll()
        h.advance(seconds: 30)
        #expect(h.receive("NO") == ["timer(+60s)"])  // progress restarts the wait
        h.advance(seconds: 59)
        #expect(h.send(.timerFired).isEmpty)
        h.advance(seconds: 1)
        #expect(h.send(.timerFired) == ["write", "interest(read: false, write: false)", "timer(+300s)"])
        let (written, actions) = h.writeAll()
        #expect(written == "421 4.4.2 Error: timeout exceeded\r\n")
        #expect(actions == ["shutdownWrite", "interest(read: true, write: false)", "timer(+2s)"])
        #expect(h.receive("OP\r\n").isEmpty)  // drained, never parsed
        #expect(h.send(.readEOF) == ["close"])
    }

    @Test("NOOPs do not extend the session past maxSessionDuration: 421 4.4.2, then closing as after a timeout")
    func sessionTimeLimit() {
        var h = SessionHarness {
            $0.commandTimeout = .seconds(300)
            $0.maxSessionDuration = .seconds(600)
        }
        #expect(h.send(.opened) == ["write", "timer(+300s)"])
        _ = h.writeAll()
        for _ in 0..<2 {
            h.advance(seconds: 200)
            h.receive("NOOP\r\n")
            #expect(h.writeAll().written == "250 2.0.0 Ok\r\n")
        }
        #expect(h.machine.hasUnsentOutput == false)
        h.advance(seconds: 199)
        #expect(h.send(.timerFired).isEmpty)
        h.advance(seconds: 1)
        #expect(h.send(.timerFired) == ["write", "interest(read: false, write: false)", "timer(+300s)"])
        let (written, actions) = h.writeAll()
        #expect(written == "421 4.4.2 Error: session time limit exceeded\r\n")
        #expect(actions == ["shutdownWrite", "interest(read: true, write: false)", "timer(+2s)"])
    }

    @Test("a command ended by a bare LF is refused 500 5.5.2 and not executed; CRLF commands go on")
    func bareLineFeed() {
        let c = Conversation.both("EHLO c\nMAIL FROM:<a@b.test>\r\nEHLO c\r\nQUIT\n")
        #expect(c.lines[1] == "500 5.5.2 Error: bare <LF> received")
        #expect(c.lines[2] == "503 5.5.1 Error: send HELO/EHLO first", "the bare-LF EHLO did not greet")
        #expect(c.lines.last == "500 5.5.2 Error: bare <LF> received")
        #expect(!c.ended, "the bare-LF QUIT did not end the session")
    }

    @Test("QUIT: 221, then the sending side is shut; the client's close closes")
    func quit() {
        var h = SessionHarness()
        h.send(.opened)
        _ = h.writeAll()
        #expect(h.receive("QUIT\r\nNOOP\r\n") == ["write", "interest(read: false, write: false)"])
        let (written, actions) = h.writeAll()
        #expect(written == "221 2.0.0 Bye\r\n")
        #expect(actions == ["shutdownWrite", "interest(read: true, write: false)", "timer(+2s)"])
        h.advance(seconds: 2)
        #expect(h.send(.timerFired) == ["close"])
    }

    @Test("shutdown: an idle session is told 421 4.3.2 and closed")
    func shutdownIdle() {
        var h = SessionHarness()
        h.send(.opened)
        _ = h.writeAll()
        h.receive("EHLO c\r\nMAIL FROM:<a@b.test>\r\n")
        _ = h.writeAll()
        #expect(h.send(.shutdown) == ["write", "interest(read: false, write: false)"])
        #expect(h.writeAll().written == "421 4.3.2 Service shutting down\r\n")
    }

    @Test("shutdown during DATA: the message is read, stored and answered, then 421 4.3.2")
    func shutdownDuringData() {
        var h = SessionHarness()
        h.send(.opened)
        h.receive("EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\n")
        h.complete(.verdict(.accept))
        h.receive("DATA\r\npart one\r\n")
        _ = h.writeAll()
        #expect(h.send(.shutdown).isEmpty)
        #expect(!h.machine.hasUnsentOutput)
        #expect(h.receive("part two\r\n.\r\nNOOP\r\n").first == "perform(deliver to alice@local.test)")
        h.complete(.delivered(queueID: "Q9"))
        #expect(h.writeAll().written == "250 2.0.0 OK queued as Q9\r\n421 4.3.2 Service shutting down\r\n")
    }

    @Test("over the connection cap: 421 4.3.2 at once, then close")
    func refusing() {
        var h = SessionHarness(refusing: true)
        #expect(h.send(.opened) == ["write", "interest(read: false, write: false)", "timer(+300s)"])
        let (written, actions) = h.writeAll()
        #expect(written == "421 4.3.2 Too many connections, try again later\r\n")
        #expect(actions.first == "shutdownWrite")
    }

    @Test("the client closing mid-message closes the session and delivers nothing")
    func eofDuringData() {
        var h = SessionHarness()
        h.send(.opened)
        h.receive("EHLO c\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@local.test>\r\n")
        h.complete(.verdict(.accept))
        h.receive("DATA\r\nhalf a mess")
        _ = h.writeAll()
        #expect(h.send(.readEOF) == ["close"])
        #expect(h.jobs.isEmpty)
    }

    @Test("a socket that takes no output pauses parsing and reading; the write timeout closes it")
    func writeBlocked() {
        var h = SessionHarness()
        h.send(.opened)
        #expect(h.send(.writeBlocked) == ["interest(read: false, write: true)"])
        #expect(h.receive("NOOP\r\n").isEmpty)  // already read: waits
        #expect(h.send(.writable) == ["write", "interest(read: true, write: false)"])
        #expect(h.writeAll().written == "220 mx.test ESMTP Postern\r\n250 2.0.0 Ok\r\n")
        h.receive("NOOP\r\n")
        h.send(.writeBlocked)
        h.advance(seconds: 300)
        #expect(h.send(.timerFired) == ["close"])
    }
}

/// Review 7: the messages every session reads together stay within the process's ``BufferBudget``.
@Suite("SMTP session: DATA within the shared budget")
struct SMTPBufferBudgetTests {
    @Test("a message the budget cannot hold is read to its end, not kept, answered 452 4.3.1; the next one fits")
    func starved() {
        let budget = BufferBudget(capacity: 100_000)
        #expect(budget.reserve(90_000))  // other sessions' messages
        let body = String(repeating: "0123456789abcdef\r\n", count: 2_000)  // 36 kB
        let mail = "MAIL FROM:<a@remote.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\n\(body).\r\n"
        let c = Conversation.both("EHLO c\r\n" + mail) { $0.buffers = budget }
        #expect(c.lines.last == "452 4.3.1 Insufficient system storage, try again later")
        #expect(c.deliveries.isEmpty)
        #expect(budget.inUse == 90_000)
        budget.release(90_000)
        let d = Conversation.both("EHLO c\r\n" + mail) { $0.buffers = budget }
        #expect(d.lines.last?.hasPrefix("250 2.0.0 OK queued") == true)
        #expect(budget.inUse == 0)  // given back once stored
    }
}
