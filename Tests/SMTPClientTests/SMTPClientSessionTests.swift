import PosternTestSupport
import SMTPClient
import SMTPOutcomes
import Testing

/// Drives a session by hand: what it sends is kept as text, replies are fed as text.
private struct Harness {
    var session: SMTPClientSession
    var sent: [String] = []
    var lastActions: [SMTPClientAction] = []

    init(
        _ configure: (inout SMTPClientConfiguration) -> Void = { _ in }, messages: [SMTPOutboundMessage],
        overTLS: Bool = false
    ) {
        var configuration = SMTPClientConfiguration(heloName: "out.test", tls: .opportunistic)
        configure(&configuration)
        session = SMTPClientSession(configuration: configuration, messages: messages)
        take(session.connected(overTLS: overTLS))
    }

    mutating func take(_ actions: [SMTPClientAction]) {
        lastActions = actions
        for case .send(let bytes, _) in actions { sent.append(String(decoding: bytes, as: UTF8.self)) }
    }

    /// Feeds `reply` and returns what the session wrote in answer.
    @discardableResult
    mutating func reply(_ reply: String) -> [String] {
        let before = sent.count
        take(session.receive(Array(reply.utf8)))
        return Array(sent[before...])
    }

    var waitsFor: Duration? {
        for case .awaitReply(let timeout) in lastActions { return timeout }
        return nil
    }

    var closed: Bool { lastActions.contains(.close) }
    var wantsTLS: Bool { lastActions.contains(.startTLS) }
}

private let ehloPipelining = "250-mx.test\r\n250-PIPELINING\r\n250-SIZE 100000\r\n250 8BITMIME\r\n"
private let message = SMTPOutboundMessage(
    sender: "agent@postern.test", recipients: ["a@remote.test", "b@remote.test"],
    content: Array("Subject: hi\r\n\r\nbody\r\n".utf8))

@Suite("SMTPClientSession: the client's SMTP rules as a pure machine")
struct SMTPClientSessionTests {
    @Test("with PIPELINING, MAIL FROM and every RCPT TO go in one write; 250 and 450 give delivered and deferred")
    func pipelinedMixedRecipients() {
        var h = Harness(messages: [message])
        #expect(h.waitsFor == .seconds(300))  // RFC 5321 §4.5.3.2.1: the greeting
        #expect(h.reply("220 mx.test ESMTP\r\n") == ["EHLO out.test\r\n"])
        #expect(
            h.reply(ehloPipelining) == [
                "MAIL FROM:<agent@postern.test> SIZE=21\r\nRCPT TO:<a@remote.test>\r\nRCPT TO:<b@remote.test>\r\n"
            ])
        #expect(h.reply("250 2.1.0 Ok\r\n").isEmpty)
        #expect(h.waitsFor == .seconds(300))
        #expect(h.reply("250 2.1.5 Ok\r\n450 4.2.0 Mailbox busy, try later\r\n") == ["DATA\r\n"])
        #expect(h.waitsFor == .seconds(120))  // §4.5.3.2.4: DATA initiation
        #expect(h.reply("354 go ahead\r\n") == ["Subject: hi\r\n\r\nbody\r\n.\r\n"])
        #expect(h.waitsFor == .seconds(600))  // §4.5.3.2.6: DATA termination
        #expect(h.reply("250 2.0.0 queued as X1\r\n") == ["QUIT\r\n"])
        #expect(!h.session.isFinished)
        h.reply("221 2.0.0 Bye\r\n")
        #expect(h.closed && h.session.isFinished)
        #expect(h.session.results.first?.map(\.status.name) == ["delivered", "deferred"])
        #expect(h.session.results.first?[0].detail == "250 2.0.0 queued as X1")
        #expect(h.session.results.first?[1].detail == "450 4.2.0 Mailbox busy, try later")
    }

    @Test("without PIPELINING each command waits for its reply; a 550 recipient fails; a 5xx MAIL fails the message")
    func lockStep() {
        let second = SMTPOutboundMessage(sender: "x@postern.test", recipients: ["c@remote.test"], content: [65])
        var h = Harness(messages: [message, second])
        h.reply("220 mx.test\r\n")
        #expect(h.reply("250 mx.test\r\n") == ["MAIL FROM:<agent@postern.test>\r\n"])
        #expect(h.reply("250 Ok\r\n") == ["RCPT TO:<a@remote.test>\r\n"])
        #expect(h.reply("550 5.1.1 No such user\r\n") == ["RCPT TO:<b@remote.test>\r\n"])
        #expect(h.reply("250 Ok\r\n") == ["DATA\r\n"])
        h.reply("354 go\r\n")
        #expect(!h.session.isDecided(message: 0))  // b@ waits for the end of DATA
        // Another message follows on the same connection: RSET between them.
        #expect(h.reply("250 Ok\r\n") == ["RSET\r\n"])
        // The first message's outcome is final once its transaction ended, before the connection does.
        #expect(h.session.isDecided(message: 0) && !h.session.isDecided(message: 1))
        #expect(h.reply("250 Ok\r\n") == ["MAIL FROM:<x@postern.test>\r\n"])
        #expect(h.reply("553 5.7.1 Sender refused\r\n") == ["QUIT\r\n"])
        #expect(h.session.isDecided(message: 1) && !h.session.isDecided(message: 2))
        h.reply("221 Bye\r\n")
        #expect(h.session.results.map { $0.map(\.status.name) } == [["failed", "delivered"], ["failed"]])
        #expect(h.session.results[0][0].reply?.enhanced?.description == "5.1.1")
        #expect(h.session.results[1][0].detail == "553 5.7.1 Sender refused")
        // Typed to the end: the refused RCPT TO is about the recipient, the refused MAIL FROM about the sender.
        let noSuchUser = SMTPReply(line: "550 5.1.1 No such user")
        let senderRefused = SMTPReply(line: "553 5.7.1 Sender refused")
        #expect(h.session.results[0][0].status == .failed(.remote(noSuchUser, about: .recipient)))
        #expect(h.session.results[1][0].status == .failed(.remote(senderRefused, about: .sender)))
        #expect(h.session.results[0][1].status == .delivered(SMTPReply(line: "250 Ok")))
    }

    @Test("a pipelined MAIL FROM refused: the RCPT replies that follow are read and ignored, the next message goes on")
    func pipelinedSenderRefused() {
        let second = SMTPOutboundMessage(sender: "x@postern.test", recipients: ["c@remote.test"], content: [65])
        var h = Harness(messages: [message, second])
        h.reply("220 mx.test\r\n")
        h.reply(ehloPipelining)
        let next = h.reply("451 4.3.0 Try later\r\n503 5.5.1 need MAIL\r\n503 5.5.1 need MAIL\r\n")
        #expect(next == ["MAIL FROM:<x@postern.test> SIZE=1\r\nRCPT TO:<c@remote.test>\r\n"])
        #expect(h.session.results[0].map(\.status.name) == ["deferred", "deferred"])
    }

    @Test("every recipient refused: RSET, and no DATA")
    func allRefused() {
        var h = Harness(messages: [message])
        h.reply("220 mx.test\r\n")
        h.reply(ehloPipelining)
        #expect(h.reply("250 Ok\r\n550 no\r\n550 no\r\n") == ["RSET\r\n"])
        #expect(h.reply("250 Ok\r\n") == ["QUIT\r\n"])
        #expect(h.session.results[0].map(\.status.name) == ["failed", "failed"])
    }

    @Test("a 5xx to EHLO falls back to HELO, which offers no extension")
    func heloFallback() {
        var h = Harness(messages: [message])
        h.reply("220 old.test\r\n")
        #expect(h.reply("502 5.5.2 Command not recognized\r\n") == ["HELO out.test\r\n"])
        #expect(h.reply("250 old.test\r\n") == ["MAIL FROM:<agent@postern.test>\r\n"])
    }

    @Test("STARTTLS required but not offered: nothing is sent, every recipient deferred, QUIT")
    func tlsRequiredNotOffered() {
        var h = Harness({ $0.tls = .required }, messages: [message])
        h.reply("220 mx.test\r\n")
        #expect(h.reply(ehloPipelining) == ["QUIT\r\n"])
        h.reply("221 Bye\r\n")
        #expect(h.session.results[0].map(\.status.name) == ["deferred", "deferred"])
        #expect(h.session.results[0][0].detail == "451 4.7.0 TLS required but STARTTLS not offered")
        #expect(!h.sent.contains { $0.hasPrefix("MAIL") })
    }

    @Test("STARTTLS offered: the driver is told to start TLS, then EHLO again; AUTH PLAIN over TLS")
    func startTLSThenAuth() {
        var h = Harness(
            { $0.credentials = SMTPCredentials(username: "relay", password: "secret") }, messages: [message])
        h.reply("220 smarthost.test\r\n")
        #expect(h.reply("250-smarthost.test\r\n250-STARTTLS\r\n250 AUTH PLAIN LOGIN\r\n") == ["STARTTLS\r\n"])
        h.reply("220 2.0.0 Ready\r\n")
        #expect(h.wantsTLS && h.waitsFor == nil)
        h.take(h.session.tlsEstablished())
        #expect(h.sent.last == "EHLO out.test\r\n")
        #expect(h.session.isSecured)
        // base64("\0relay\0secret")
        #expect(h.reply("250-smarthost.test\r\n250 AUTH PLAIN LOGIN\r\n") == ["AUTH PLAIN AHJlbGF5AHNlY3JldA==\r\n"])
        #expect(h.reply("235 2.7.0 Authentication successful\r\n") == ["MAIL FROM:<agent@postern.test>\r\n"])
        #expect(h.session.isAuthenticated)
    }

    @Test("AUTH LOGIN when PLAIN is not offered; a 535 defers everything")
    func authLogin() {
        var h = Harness(
            { $0.credentials = SMTPCredentials(username: "relay", password: "secret") }, messages: [message])
        h.reply("220 smarthost.test\r\n")
        h.reply("250-smarthost.test\r\n250 STARTTLS\r\n")
        h.reply("220 Ready\r\n")
        h.take(h.session.tlsEstablished())
        #expect(h.reply("250-smarthost.test\r\n250 AUTH=LOGIN\r\n") == ["AUTH LOGIN\r\n"])
        #expect(h.reply("334 VXNlcm5hbWU6\r\n") == ["cmVsYXk=\r\n"])
        #expect(h.reply("334 UGFzc3dvcmQ6\r\n") == ["c2VjcmV0\r\n"])
        #expect(h.reply("535 5.7.8 Authentication credentials invalid\r\n") == ["QUIT\r\n"])
        #expect(h.session.results[0].map(\.status.name) == ["deferred", "deferred"])
    }

    @Test("implicit TLS (smtps): no STARTTLS even when offered, TLS required is met, AUTH PLAIN after the first EHLO")
    func implicitTLS() {
        var h = Harness(
            {
                $0.credentials = SMTPCredentials(username: "relay", password: "secret")
                $0.tls = .required
            }, messages: [message], overTLS: true)
        #expect(h.session.isSecured)
        #expect(h.reply("220 smarthost.test\r\n") == ["EHLO out.test\r\n"])
        #expect(
            h.reply("250-smarthost.test\r\n250-STARTTLS\r\n250 AUTH PLAIN\r\n") == [
                "AUTH PLAIN AHJlbGF5AHNlY3JldA==\r\n"
            ])
        #expect(h.reply("235 2.7.0 Authentication successful\r\n") == ["MAIL FROM:<agent@postern.test>\r\n"])
        #expect(!h.wantsTLS && !h.sent.contains("STARTTLS\r\n"))
    }

    @Test("credentials are never sent in the clear: no STARTTLS offered means no AUTH and no mail")
    func authNeedsTLS() {
        var h = Harness(
            { $0.credentials = SMTPCredentials(username: "relay", password: "secret") }, messages: [message])
        h.reply("220 smarthost.test\r\n")
        #expect(h.reply("250-smarthost.test\r\n250 AUTH PLAIN\r\n") == ["QUIT\r\n"])
        #expect(h.session.results[0].allSatisfy { $0.status.name == "deferred" })
        #expect(!h.sent.contains { $0.contains("AUTH") })
    }

    @Test("bytes after the 220 to STARTTLS (a response injection, RFC 3207 §5) end the session before the handshake")
    func startTLSInjection() {
        var h = Harness(messages: [message])
        h.reply("220 mx.test\r\n")
        h.reply("250-mx.test\r\n250 STARTTLS\r\n")
        h.reply("220 Ready\r\n250 injected\r")
        #expect(!h.wantsTLS && h.closed)
        #expect(h.session.results[0].allSatisfy { $0.status.name == "deferred" })
        var whole = Harness(messages: [message])
        whole.reply("220 mx.test\r\n")
        whole.reply("250-mx.test\r\n250 STARTTLS\r\n")
        whole.reply("220 Ready\r\n250 injected\r\n")
        #expect(!whole.wantsTLS && whole.closed)
        let injected = SMTPClientFailure.tls("the server sent data after 220 to STARTTLS")
        #expect(whole.session.results[0][0].status == .deferred(.client(injected)))
    }

    @Test("opportunistic: a refused STARTTLS goes on in the clear; required: it defers")
    func startTLSRefused() {
        var h = Harness(messages: [message])
        h.reply("220 mx.test\r\n")
        h.reply("250-mx.test\r\n250 STARTTLS\r\n")
        #expect(h.reply("454 4.7.0 TLS not available\r\n") == ["MAIL FROM:<agent@postern.test>\r\n"])
        var strict = Harness({ $0.tls = .required }, messages: [message])
        strict.reply("220 mx.test\r\n")
        strict.reply("250-mx.test\r\n250 STARTTLS\r\n")
        #expect(strict.reply("454 4.7.0 TLS not available\r\n") == ["QUIT\r\n"])
    }

    @Test("a 421, a timeout, a lost connection and a malformed reply defer what is undecided")
    func sessionFailures() {
        var h = Harness(messages: [message])
        h.reply("220 mx.test\r\n")
        h.reply("250 mx.test\r\n")
        h.reply("250 Ok\r\n")
        h.reply("250 Ok\r\n")
        h.reply("421 4.3.2 Shutting down\r\n")
        #expect(h.closed)
        #expect(h.session.results[0].map(\.status.name) == ["deferred", "deferred"])
        #expect(h.session.results[0][1].reply?.code == 421)

        var timed = Harness(messages: [message])
        timed.take(timed.session.timedOut())
        #expect(timed.closed && timed.session.results[0][0].status == .deferred(.client(.timeout)))

        var broken = Harness(messages: [message])
        broken.reply("220 mx.test\r\n")
        broken.reply("HTTP/1.1 400 Bad Request\r\n")
        #expect(broken.closed && broken.session.results[0].allSatisfy { $0.status.name == "deferred" })
    }

    @Test("addresses that could end the command early are refused before anything is sent")
    func injectionInAddresses() {
        let bad = SMTPOutboundMessage(
            sender: "agent@postern.test", recipients: ["x@remote.test>\r\nRCPT TO:<y@evil.test", "ok@remote.test"],
            content: [65])
        var h = Harness(messages: [bad])
        h.reply("220 mx.test\r\n")
        #expect(h.reply(ehloPipelining) == ["MAIL FROM:<agent@postern.test> SIZE=1\r\nRCPT TO:<ok@remote.test>\r\n"])
        #expect(h.session.results[0][0].status == .failed(.client(.refused(.invalidAddress, address: .recipient))))
        #expect(h.session.results[0][0].detail == "553 5.1.3 invalid recipient address")
    }

    @Test("a message over the server's SIZE fails without being sent; 8-bit text asks for BODY=8BITMIME")
    func sizeAndBody() {
        let big = SMTPOutboundMessage(
            sender: "a@p.test", recipients: ["b@r.test"], content: Array(repeating: 65, count: 200_000))
        let eight = SMTPOutboundMessage(sender: "a@p.test", recipients: ["b@r.test"], content: [0xC3, 0xA9])
        var h = Harness(messages: [big, eight])
        h.reply("220 mx.test\r\n")
        #expect(h.reply(ehloPipelining) == ["MAIL FROM:<a@p.test> SIZE=2 BODY=8BITMIME\r\nRCPT TO:<b@r.test>\r\n"])
        let tooLarge = SMTPClientFailure.refused(.messageTooLarge(limit: 100_000), address: nil)
        #expect(h.session.results[0][0].status == .failed(.client(tooLarge)))
    }

    @Test("message text: CRLF everywhere, leading dots doubled, a final CRLF added, then the end mark")
    func dataEncoding() {
        let text = Array(".first\nsecond\r\n..two\rthird\r\n.\r\nlast".utf8)
        let encoded = String(decoding: SMTPDataEncoder.encode(text), as: UTF8.self)
        #expect(encoded == "..first\r\nsecond\r\n...two\r\nthird\r\n..\r\nlast\r\n.\r\n")
        #expect(SMTPDataEncoder.encode([]) == Array(".\r\n".utf8))
        #expect(SMTPDataEncoder.encode(Array("x\r\n".utf8)) == Array("x\r\n.\r\n".utf8))
    }
}
