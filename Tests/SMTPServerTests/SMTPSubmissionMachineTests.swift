import Testing

@testable import SMTPServer

/// The submission listener's rules (RFC 6409, issue 87) through the pure session machine, whole and byte by byte, with
/// the scripted submission sink of ``Conversation``: AUTH PLAIN, LOGIN, XOAUTH2 and OAUTHBEARER signed in by the sink
/// with the client's address, RFC 7628's error challenge for a refused token, each `MAIL FROM` admitted by the sink
/// (a read-only mailbox, another address, a revoked credential), DSN's parameters kept, and the sink's own refusals.
@Suite("SMTP submission machine")
struct SMTPSubmissionMachineTests {
    static func submission(_ c: inout SMTPServerConfiguration) {
        c.requiresAuthentication = true
        c.submission = true
    }

    /// base64 of `\0ada@local.test\0good`, of `\0mia@local.test\0readonly`, of `\0ada@local.test\0revoked`.
    static let ada = "AGFkYUBsb2NhbC50ZXN0AGdvb2Q="
    static let mia = "AG1pYUBsb2NhbC50ZXN0AHJlYWRvbmx5"
    static let revoked = "AGFkYUBsb2NhbC50ZXN0AHJldm9rZWQ="
    /// XOAUTH2 for ada with `read-token` and `send-token`; OAUTHBEARER with `send-token` naming nobody, and with `busy`.
    static let xoauth2Read = "dXNlcj1hZGFAbG9jYWwudGVzdAFhdXRoPUJlYXJlciByZWFkLXRva2VuAQE="
    static let xoauth2Send = "dXNlcj1hZGFAbG9jYWwudGVzdAFhdXRoPUJlYXJlciBzZW5kLXRva2VuAQE="
    static let bearerSend = "biwsAWF1dGg9QmVhcmVyIHNlbmQtdG9rZW4BAQ=="
    static let bearerBusy = "bixhPWFkYUBsb2NhbC50ZXN0LAFhdXRoPUJlYXJlciBidXN5AQE="

    @Test("EHLO offers SIZE, 8BITMIME, PIPELINING, AUTH with the OAuth mechanisms, DSN and ENHANCEDSTATUSCODES")
    func ehlo() {
        let c = Conversation.both("EHLO c\r\n", peer: "127.0.0.1", Self.submission)
        #expect(
            c.lines == [
                "220 mx.test ESMTP Postern", "250-mx.test", "250-SIZE 26214400", "250-8BITMIME", "250-PIPELINING",
                "250-AUTH PLAIN LOGIN OAUTHBEARER XOAUTH2", "250-DSN", "250 ENHANCEDSTATUSCODES",
            ])
        // The ingest listener offers neither AUTH nor DSN.
        let ingest = Conversation.both("EHLO c\r\n", peer: "127.0.0.1")
        #expect(!ingest.replies.contains("AUTH") && !ingest.replies.contains("DSN"))
    }

    @Test("Off loopback before TLS: no AUTH offered, AUTH answered 530 5.7.0, MAIL refused")
    func plaintextOffLoopback() {
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.ada)\r\nMAIL FROM:<ada@local.test>\r\n", peer: "192.0.2.7", Self.submission)
        #expect(!c.replies.contains("AUTH PLAIN"))
        #expect(
            c.lines.suffix(2) == ["530 5.7.0 Must issue a STARTTLS command first", "530 5.7.0 Authentication required"])
        #expect(c.deliveries.isEmpty)
    }

    @Test("PLAIN, then a message with DSN's parameters, which the envelope carries with the sign-in")
    func plainWithDSN() throws {
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.ada)\r\nMAIL FROM:<ada@local.test> RET=HDRS ENVID=QQ+2B123 SIZE=10\r\n"
                + "RCPT TO:<alice@local.test> NOTIFY=SUCCESS,FAILURE ORCPT=rfc822;alice+2Bx@local.test\r\n"
                + "RCPT TO:<bob@local.test>\r\nDATA\r\nFrom: ada@local.test\r\n\r\nhi\r\n.\r\nQUIT\r\n",
            peer: "127.0.0.1", Self.submission)
        #expect(
            c.lines.suffix(7) == [
                "235 2.7.0 Authentication successful", "250 2.1.0 Ok", "250 2.1.5 Ok", "250 2.1.5 Ok",
                "354 End data with <CR><LF>.<CR><LF>", "250 2.0.0 OK queued as Q1", "221 2.0.0 Bye",
            ])
        let envelope = try #require(c.deliveries.first)
        #expect(envelope.signIn?.identity == "ada@local.test")
        #expect(envelope.authenticatedAs == "ada@local.test")
        #expect(envelope.dsn == SMTPMailParameters(ret: .headers, envelopeID: "QQ+123"))
        #expect(envelope.recipients == ["alice@local.test", "bob@local.test"])
        #expect(
            envelope.recipientDSN == [
                SMTPRecipientParameters(
                    notify: .on([.success, .failure]), originalRecipient: ("rfc822", "alice+x@local.test")),
                SMTPRecipientParameters(),
            ])
    }

    @Test("The sink's MAIL FROM verdicts: a read-only mailbox 550 5.7.1, another address 553 5.7.1, revoked 530")
    func senders() {
        let readOnly = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.mia)\r\nMAIL FROM:<mia@local.test>\r\nRCPT TO:<alice@local.test>\r\n",
            peer: "127.0.0.1", Self.submission)
        #expect(
            readOnly.lines.suffix(3) == [
                "235 2.7.0 Authentication successful", "550 5.7.1 A Mail.td account sends nothing",
                "503 5.5.1 Error: need MAIL command",
            ])
        let other = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.ada)\r\nMAIL FROM:<eve@local.test>\r\nMAIL FROM:<ada@local.test>\r\n",
            peer: "127.0.0.1", Self.submission)
        #expect(other.lines.suffix(2) == ["553 5.7.1 Not your address", "250 2.1.0 Ok"])
        let gone = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.revoked)\r\nMAIL FROM:<ada@local.test>\r\nMAIL FROM:<ada@local.test>\r\n",
            peer: "127.0.0.1", Self.submission)
        #expect(gone.lines.suffix(2) == ["530 5.7.0 Authentication required", "530 5.7.0 Authentication required"])
    }

    @Test("XOAUTH2 and OAUTHBEARER: a token with the send scope signs in, a read-only one gets RFC 7628's challenge")
    func bearer() {
        let sent = Conversation.both(
            "EHLO c\r\nAUTH XOAUTH2 \(Self.xoauth2Send)\r\nMAIL FROM:<ada@local.test>\r\n", peer: "127.0.0.1",
            Self.submission)
        #expect(sent.lines.suffix(2) == ["235 2.7.0 Authentication successful", "250 2.1.0 Ok"])
        // OAUTHBEARER without an initial response: the empty challenge, then the message; the token's own mailbox.
        let owner = Conversation.both(
            "EHLO c\r\nAUTH OAUTHBEARER\r\n\(Self.bearerSend)\r\nMAIL FROM:<owner@local.test>\r\n", peer: "::1",
            Self.submission)
        #expect(owner.lines.suffix(3) == ["334 ", "235 2.7.0 Authentication successful", "250 2.1.0 Ok"])
        // A read-only token: the error JSON as a challenge; the client's answer (empty, or AQ==) ends it with 535.
        for answer in ["", "AQ=="] {
            let refused = Conversation.both(
                "EHLO c\r\nAUTH XOAUTH2 \(Self.xoauth2Read)\r\n\(answer)\r\nMAIL FROM:<ada@local.test>\r\n",
                peer: "127.0.0.1", Self.submission)
            #expect(
                refused.lines.suffix(3) == [
                    "334 eyJzdGF0dXMiOiJ4In0=", "535 5.7.8 Authentication credentials invalid",
                    "530 5.7.0 Authentication required",
                ])
        }
        // The store down: 454 4.7.0, try later; not counted as a failed attempt.
        let busy = Conversation.both(
            "EHLO c\r\nAUTH OAUTHBEARER \(Self.bearerBusy)\r\n", peer: "127.0.0.1", Self.submission)
        #expect(busy.lines.last == "454 4.7.0 Temporary authentication failure, try again later")
        // Not offered on the sandbox's listener.
        let sandbox = Conversation.both("EHLO c\r\nAUTH XOAUTH2 \(Self.xoauth2Send)\r\n", peer: "127.0.0.1") {
            $0.requiresAuthentication = true
        }
        #expect(sandbox.lines.last == "504 5.5.4 Unrecognized authentication type")
    }

    @Test("The sign-in job carries the client's address; a password goes to signIn, not the sandbox's authenticate")
    func signInJob() {
        var h = SessionHarness(peer: "127.0.0.1", Self.submission)
        h.send(.opened)
        _ = h.writeAll()
        h.receive("EHLO c\r\n")
        _ = h.writeAll()
        #expect(h.receive("AUTH PLAIN \(Self.ada)\r\n").contains("perform(signIn ada@local.test:good from 127.0.0.1)"))
    }

    @Test("The sink's refusal of a message is sent with its own code, and the transaction ends")
    func sinkRefusal() {
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.ada)\r\nMAIL FROM:<ada@local.test>\r\nRCPT TO:<alice@local.test>\r\n"
                + "DATA\r\nFrom: mallory@local.test\r\n\r\nhi\r\n.\r\nRCPT TO:<bob@local.test>\r\n",
            peer: "127.0.0.1", Self.submission)
        #expect(
            c.lines.suffix(2) == [
                "550 5.7.1 The From of the email must be the mailbox", "503 5.5.1 Error: need MAIL command",
            ])
    }

    @Test("DSN's parameters: 555 where DSN is not offered, 501 when malformed or repeated")
    func dsnParameters() {
        let ingest = Conversation.both(
            "EHLO c\r\nMAIL FROM:<a@x.test> RET=FULL\r\nMAIL FROM:<a@x.test>\r\nRCPT TO:<alice@local.test> NOTIFY=NEVER\r\n",
            peer: "127.0.0.1")
        #expect(
            ingest.lines.suffix(3) == [
                "555 5.5.4 Unsupported parameter", "250 2.1.0 Ok", "555 5.5.4 Unsupported parameter",
            ])
        let malformed = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.ada)\r\nMAIL FROM:<ada@local.test> RET=BODY\r\n"
                + "MAIL FROM:<ada@local.test> ENVID=a=b\r\nMAIL FROM:<ada@local.test> RET=FULL RET=HDRS\r\n"
                + "MAIL FROM:<ada@local.test>\r\nRCPT TO:<alice@local.test> NOTIFY=NEVER,SUCCESS\r\n"
                + "RCPT TO:<alice@local.test> ORCPT=alice@local.test\r\n",
            peer: "127.0.0.1", Self.submission)
        #expect(
            malformed.lines.suffix(6) == [
                "501 5.5.4 Syntax: MAIL FROM:<address> RET=FULL|HDRS",
                "501 5.5.4 Syntax: MAIL FROM:<address> ENVID=<xtext>",
                "501 5.5.4 Syntax: MAIL FROM:<address> [parameters]", "250 2.1.0 Ok",
                "501 5.5.4 Syntax: RCPT TO:<address> NOTIFY=NEVER|SUCCESS,FAILURE,DELAY",
                "501 5.5.4 Syntax: RCPT TO:<address> ORCPT=<type>;<xtext>",
            ])
    }

    @Test("A listener draining before a stop answers a new session 421 4.3.2 and closes it")
    func draining() {
        var h = SessionHarness(peer: "127.0.0.1", Self.submission)
        h.machine = SMTPSessionMachine(shared: h.machine.shared, peer: "127.0.0.1", refusing: false, draining: true)
        h.send(.opened)
        let (written, actions) = h.writeAll()
        #expect(written == "421 4.3.2 Service shutting down\r\n")
        #expect(actions.contains("shutdownWrite") || actions.contains("close") || h.machine.lifecycle.stage != .open)
    }
}
