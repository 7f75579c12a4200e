import Foundation
import Glibc
import Logging
import PosternTestSupport
import SMTPServer
import SocketServer
import Testing

/// A started group and an SMTP server on port 0 with a memory sink.
func startServer(
    sink: MemorySink = MemorySink(), loops: Int = 2, _ configure: (inout SMTPServerConfiguration) -> Void = { _ in }
) throws -> (EventLoopGroup, SMTPServer, Int) {
    let group = try EventLoopGroup(count: loops, pollInterval: .milliseconds(20))
    group.startOnce()
    var configuration = SMTPServerConfiguration(host: "127.0.0.1", port: 0, hostname: "mx.test")
    configure(&configuration)
    let server = SMTPServer(configuration: configuration, sink: sink, group: group, logger: Logger(label: "test.smtp"))
    let port = try server.start()
    return (group, server, port)
}

func stop(_ group: EventLoopGroup, _ server: SMTPServer) async {
    await server.shutdown()
    await group.shutdownJoining()
}

private let smtplibSession = #"""
    import smtplib, sys
    s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), local_hostname="client.test", timeout=10)
    code, _ = s.ehlo()
    features = [s.has_extn(name) for name in ("pipelining", "8bitmime", "starttls")]
    print("ehlo", code, s.esmtp_features.get("size"), *features)
    msg = b"From: a@remote.test\r\nSubject: hi\r\n\r\n.leading dot\r\n.\r\nna\xc3\xafve \xe9\xff\r\n"
    recipients = ["alice@local.test", "bob@local.test", "nobody@local.test", "x@elsewhere.test"]
    refused = s.sendmail("sender@remote.test", recipients, msg, mail_options=["BODY=8BITMIME"])
    print("refused", sorted((k, v[0], v[1].decode()) for k, v in refused.items()))
    try:
        s.sendmail("a@remote.test", ["alice@local.test"], b"x" * 2000)
    except smtplib.SMTPSenderRefused as e:
        print("declared-size", e.smtp_code)
    s.mail("a@remote.test")
    s.rcpt("alice@local.test")
    print("data-size", s.data(b"y" * 3000)[0])
    try:
        s.sendmail("a@remote.test", ["x@elsewhere.test"], b"hi\r\n")
    except smtplib.SMTPRecipientsRefused as e:
        print("relay", [v[0] for v in e.recipients.values()])
    try:
        s.sendmail("fail@remote.test", ["carol@local.test"], b"hi\r\n")
    except smtplib.SMTPDataError as e:
        print("store-failure", e.smtp_code)
    s.mail("a@remote.test")
    s.rcpt("carol@local.test")
    print("rset", s.rset()[0])
    print("after-rset", s.docmd("DATA")[0])
    print("quit", s.quit()[0])
    """#

@Suite("SMTPServer over loopback, with Python's smtplib and swaks unmodified", .serialized, .timeLimit(.minutes(1)))
struct SMTPServerLoopbackTests {
    @Test("smtplib: recipients refused one by one, dot-stuffed 8-bit text stored, size limits, relay, 451, RSET, QUIT")
    func smtplib() async throws {
        let sink = MemorySink()
        let (group, server, port) = try startServer(sink: sink) { $0.maxMessageBytes = 1000 }
        let result = try await ExternalClient.python(smtplibSession, port: port)
        #expect(result.status == 0, "\(result.output)")
        let transcript: [String] = [
            "ehlo 250 1000 True True False",
            "refused [('nobody@local.test', 550, '5.1.1 Mailbox unavailable: no such user here'), "
                + "('x@elsewhere.test', 550, '5.7.1 Relay not permitted')]",
            "declared-size 552", "data-size 552", "relay [550]", "store-failure 451", "rset 250", "after-rset 503",
            "quit 221",
        ]
        let lines: [String] = result.output.split(separator: "\n").map { String($0) }
        #expect(lines == transcript)
        let stored = sink.messages
        #expect(stored.count == 1)
        var envelope = try #require(stored.first?.envelope)
        // The server's trace field comes with the envelope, for the sink to put on top.
        #expect(
            String(decoding: envelope.traceField, as: UTF8.self).hasPrefix(
                "Received: from client.test ([127.0.0.1])\r\n\tby mx.test (Postern) with ESMTP;\r\n"))
        envelope.traceField = []
        #expect(
            envelope
                == SMTPEnvelope(
                    mailFrom: "sender@remote.test", recipients: ["alice@local.test", "bob@local.test"],
                    remoteAddress: "127.0.0.1", heloName: "client.test"))
        var expected = Array("From: a@remote.test\r\nSubject: hi\r\n\r\n.leading dot\r\n.\r\nna\u{EF}ve ".utf8)
        expected += [0xE9, 0xFF, 0x0D, 0x0A]
        #expect(stored.first?.data == expected)
        await stop(group, server)
    }

    @Test(
        "swaks --pipeline delivers to several recipients, dot-stuffed and 8-bit text intact",
        .enabled(if: ExternalClient.hasSwaks, "swaks is not installed: scripts/bootstrap --test installs it"))
    func swaksPipelined() async throws {
        let sink = MemorySink()
        let (group, server, port) = try startServer(sink: sink)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-swaks-\(port).eml")
        var body = Array("From: s@remote.test\r\nSubject: swaks\r\n\r\n.dot first\r\n..\r\nend \u{E9}".utf8)
        body += [0xFE, 0x0D, 0x0A]
        try Data(body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await ExternalClient.run(
            "swaks",
            [
                "--server", "127.0.0.1:\(port)", "--helo", "client.test", "--from", "s@remote.test",
                "--to", "alice@local.test,bob@local.test", "--pipeline", "--data", "@\(file.path)",
            ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("250 2.0.0 OK queued as M1"))
        #expect(sink.messages.map(\.envelope.recipients) == [["alice@local.test", "bob@local.test"]])
        #expect(sink.messages.first?.data == body + [0x0D, 0x0A])  // swaks ends the text with a CRLF of its own
        await stop(group, server)
    }

    @Test(
        "swaks is refused: relay 550 5.7.1, unknown user 550 5.1.1, too large 552",
        .enabled(if: ExternalClient.hasSwaks, "swaks is not installed: scripts/bootstrap --test installs it"))
    func swaksRefused() async throws {
        let sink = MemorySink()
        let (group, server, port) = try startServer(sink: sink) { $0.maxMessageBytes = 500 }
        let base = ["--server", "127.0.0.1:\(port)", "--helo", "client.test", "--from", "s@remote.test"]
        let relay = try await ExternalClient.run("swaks", base + ["--to", "x@elsewhere.test"])
        #expect(relay.status != 0)
        #expect(relay.output.contains("550 5.7.1 Relay not permitted"))
        let unknown = try await ExternalClient.run("swaks", base + ["--to", "nobody@local.test", "--pipeline"])
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("550 5.1.1"))
        let large = try await ExternalClient.run(
            "swaks",
            base + ["--to", "alice@local.test", "--data", "Subject: big\\n\\n" + String(repeating: "z", count: 600)])
        #expect(large.status != 0)
        #expect(large.output.contains("552 5.3.4"))
        #expect(sink.messages.isEmpty)
        await stop(group, server)
    }

    @Test("SMTP and HTTP serve at the same time on one EventLoopGroup")
    func sharedGroupWithHTTP() async throws {
        let sink = MemorySink()
        let (group, smtp, smtpPort) = try startServer(sink: sink)
        let http = try SharedGroupHTTP(group: group)
        let script = #"""
            import smtplib, sys, threading, urllib.request
            def fetch(results):
                url = "http://127.0.0.1:%s/hello" % sys.argv[2]
                results.append(urllib.request.urlopen(url, timeout=10).read().decode())
            s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), local_hostname="client.test", timeout=10)
            s.ehlo()
            s.mail("a@remote.test")
            s.rcpt("alice@local.test")
            results = []
            t = threading.Thread(target=fetch, args=(results,))
            t.start(); t.join()
            print(results[0])
            s.data(b"Subject: both\r\n\r\nhi\r\n")
            s.quit()
            print("done")
            """#
        let result = try await ExternalClient.run("python3", ["-c", script, String(smtpPort), String(http.port)])
        #expect(result.output == "hello\ndone\n", "\(result.output)")
        #expect(sink.messages.count == 1)
        await http.server.shutdown()
        await stop(group, smtp)
    }

    @Test("shutdown: an idle session is told 421 4.3.2; a message being stored is answered first")
    func gracefulShutdown() async throws {
        let sink = MemorySink(slowDelay: .milliseconds(400))
        let (group, server, port) = try startServer(sink: sink)
        let idle = try LineSocket(port: port)
        let busy = try LineSocket(port: port)
        #expect(idle.readLine() == "220 mx.test ESMTP Postern")
        #expect(busy.readLine() == "220 mx.test ESMTP Postern")
        busy.send("HELO c\r\nMAIL FROM:<slow@remote.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\n")
        #expect(
            busy.readLines(4) == ["250 mx.test", "250 2.1.0 Ok", "250 2.1.5 Ok", "354 End data with <CR><LF>.<CR><LF>"])
        busy.send("Subject: slow\r\n\r\nx\r\n.\r\n")
        // Shut down while the sink stores the message (it takes 400 ms).
        let storing = ContinuousClock.now + .seconds(10)
        while sink.deliveriesBegun == 0 && ContinuousClock.now < storing { try await Task.sleep(for: .milliseconds(5)) }
        #expect(sink.deliveriesBegun == 1)
        await server.shutdown()
        #expect(idle.readLine() == "421 4.3.2 Service shutting down")
        #expect(busy.readLines(2) == ["250 2.0.0 OK queued as M1", "421 4.3.2 Service shutting down"])
        #expect(busy.isClosedByPeer())
        #expect(sink.messages.count == 1)
        await group.shutdownJoining()
    }

    @Test("the command timeout answers 421 4.4.2 and closes")
    func commandTimeout() async throws {
        let (group, server, port) = try startServer { $0.commandTimeout = .milliseconds(200) }
        let client = try LineSocket(port: port)
        #expect(client.readLine() == "220 mx.test ESMTP Postern")
        #expect(client.readLine() == "421 4.4.2 Error: timeout exceeded")
        #expect(client.isClosedByPeer())
        await stop(group, server)
    }

    @Test("over the connection cap a session is told 421 4.3.2 and closed")
    func connectionCap() async throws {
        let (group, server, port) = try startServer { $0.maxConnections = 1 }
        let first = try LineSocket(port: port)
        #expect(first.readLine() == "220 mx.test ESMTP Postern")
        let second = try LineSocket(port: port)
        #expect(second.readLine() == "421 4.3.2 Too many connections, try again later")
        #expect(second.isClosedByPeer())
        await stop(group, server)
    }
}

/// A blocking line client for the tests that speak SMTP by hand.
final class LineSocket: @unchecked Sendable {
    let fd: Int32
    private var buffered: [UInt8] = []

    init(port: Int, from source: String? = nil) throws {
        fd = try LoopbackSocket.connect(port: port, from: source)
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// The next CRLF-ended line, or nil when the peer closed first.
    func readLine() -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<end], as: UTF8.self).trimmingCharacters(in: .newlines)
                buffered.removeSubrange(...end)
                return line
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffered += chunk[0..<count]
        }
    }

    func readLines(_ count: Int) -> [String] {
        (0..<count).compactMap { _ in readLine() }
    }

    /// Whether the server closed the connection (recv returns 0).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }
}
