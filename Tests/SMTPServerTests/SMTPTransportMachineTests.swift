import Foundation
import PosternTestSupport
import ServerTLS
import SocketServer
import Testing

@testable import SMTPServer

/// STARTTLS through ``SMTPTransportMachine`` with no socket: the test plays the event loop and a TLS client over
/// memory BIOs, so the handshake, the reset of the session and the pipelining rule are seen byte for byte.
@Suite("SMTP STARTTLS transport")
struct SMTPTransportMachineTests {
    /// A self-signed pair written to a temporary directory, loaded as a server context.
    static let context: TLSServerContext = {
        let pair = try! SelfSignedCertificate.generate(hostname: "mx.test")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-tls-\(UUID())")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try! pair.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        try! pair.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try! TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
    }()

    /// The loop's side: one machine, a clock, the jobs it asked for.
    struct Loop {
        var machine: SMTPTransportMachine
        var jobs: [SMTPSessionMachine.Job] = []
        var closed = false
        var shutDown = false
        let now: UInt64 = 1_000_000_000_000

        init(_ configure: (inout SMTPServerConfiguration) -> Void = { _ in }) {
            var configuration = SMTPServerConfiguration(hostname: "mx.test")
            configuration.tls = SMTPTransportMachineTests.context
            configure(&configuration)
            machine = SMTPTransportMachine(
                session: SMTPSessionMachine(
                    shared: SMTPSessionShared(configuration: configuration), peer: "192.0.2.7", refusing: false),
                context: SMTPTransportMachineTests.context)
            send(.opened)
        }

        mutating func send(_ event: ConnectionEvent) {
            var actions: [ConnectionAction] = []
            machine.handle(event, now: now, into: &actions)
            for action in actions {
                switch action {
                case .perform(let job): jobs.append(job as! SMTPSessionMachine.Job)
                case .close: closed = true
                case .shutdownWrite: shutDown = true
                default: break
                }
            }
        }

        mutating func receive(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { send(.bytesRead($0)) }
        }

        /// Everything the socket would carry now.
        mutating func written() -> [UInt8] {
            var all: [UInt8] = []
            while machine.hasUnsentOutput {
                let count = machine.withUnsentOutput { bytes in
                    all += bytes
                    return bytes.count
                }!
                send(.wrote(count))
            }
            return all
        }

        /// Answers the oldest job.
        mutating func complete(_ outcome: SMTPSessionMachine.Completion.Outcome) {
            jobs.removeFirst()
            send(.completed(SMTPSessionMachine.Completion(outcome)))
        }
    }

    /// Runs the handshake between `loop` and a new client.
    static func handshake(_ loop: inout Loop) -> TLSTestClient {
        let client = TLSTestClient()
        client.receive([])
        for _ in 0..<10 where !(client.isEstablished && loop.machine.isEncrypted) {
            loop.receive(client.takeOutput())
            client.receive(loop.written())
        }
        return client
    }

    @Test("STARTTLS: handshake, EHLO again without STARTTLS, AUTH only now, then a message")
    func upgrade() {
        var loop = Loop { $0.requiresAuthentication = true }
        #expect(String(decoding: loop.written(), as: UTF8.self) == "220 mx.test ESMTP Postern\r\n")
        loop.receive(Array("EHLO c\r\n".utf8))
        let offer = String(decoding: loop.written(), as: UTF8.self)
        #expect(offer.contains("250-STARTTLS\r\n") && !offer.contains("AUTH"))
        loop.receive(Array("STARTTLS\r\n".utf8))
        #expect(String(decoding: loop.written(), as: UTF8.self) == "220 2.0.0 Ready to start TLS\r\n")
        let client = Self.handshake(&loop)
        #expect(client.isEstablished && loop.machine.isEncrypted)

        client.send("MAIL FROM:<a@x.test>\r\n")
        loop.receive(client.takeOutput())
        #expect(client.receive(loop.written()) == "503 5.5.1 Error: send HELO/EHLO first\r\n")
        client.send("EHLO c\r\n")
        loop.receive(client.takeOutput())
        let secureOffer = client.receive(loop.written())
        #expect(!secureOffer.contains("STARTTLS") && secureOffer.contains("250-AUTH PLAIN LOGIN\r\n"))
        client.send("STARTTLS\r\nAUTH PLAIN AGFueQB0bV9wcm9fZ29vZA==\r\n")
        loop.receive(client.takeOutput())
        #expect(client.receive(loop.written()) == "503 5.5.1 Error: TLS already active\r\n")
        #expect(loop.jobs.count == 1)
        loop.complete(.authenticated("user-1"))
        client.send("MAIL FROM:<a@x.test>\r\nRCPT TO:<b@example.com>\r\nDATA\r\n")
        loop.receive(client.takeOutput())
        #expect(client.receive(loop.written()) == "235 2.7.0 Authentication successful\r\n")
        #expect(loop.jobs.first?.request == .confirm(identity: "user-1"))
        loop.complete(.confirmed(true))
        #expect(client.receive(loop.written()) == "250 2.1.0 Ok\r\n")
        loop.complete(.verdict(.accept))
        #expect(client.receive(loop.written()) == "250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n")
        client.send("Subject: hi\r\n\r\nbody\r\n.\r\nQUIT\r\n")
        loop.receive(client.takeOutput())
        guard case .deliver(let envelope, let data) = loop.jobs.first?.request else {
            Issue.record("no delivery asked for")
            return
        }
        #expect(envelope.authenticatedAs == "user-1" && data == Array("Subject: hi\r\n\r\nbody\r\n".utf8))
        loop.complete(.delivered(queueID: "Q1"))
        #expect(client.receive(loop.written()) == "250 2.0.0 OK queued as Q1\r\n221 2.0.0 Bye\r\n")
        #expect(loop.shutDown && !loop.closed)
    }

    @Test("Commands pipelined after STARTTLS in plaintext are dropped, never run inside TLS (RFC 3207 4.2)")
    func pipelinedPlaintextDropped() {
        var loop = Loop()
        _ = loop.written()
        loop.receive(Array("EHLO c\r\nSTARTTLS\r\nMAIL FROM:<evil@x.test>\r\nRCPT TO:<alice@local.test>\r\n".utf8))
        let plain = String(decoding: loop.written(), as: UTF8.self)
        #expect(plain.hasSuffix("250 ENHANCEDSTATUSCODES\r\n220 2.0.0 Ready to start TLS\r\n"))
        #expect(loop.jobs.isEmpty)
        // Injected bytes that arrive before the client's ClientHello are not TLS: the handshake fails, the
        // connection closes, and they are never parsed as SMTP.
        var injected = Loop()
        _ = injected.written()
        injected.receive(Array("EHLO c\r\nSTARTTLS\r\n".utf8))
        _ = injected.written()
        injected.receive(Array("RSET\r\n".utf8))
        #expect(injected.closed && injected.jobs.isEmpty)

        let client = Self.handshake(&loop)
        #expect(client.isEstablished)
        client.send("EHLO c\r\n")
        loop.receive(client.takeOutput())
        let reply = client.receive(loop.written())
        #expect(reply.hasPrefix("250-mx.test\r\n") && reply.hasSuffix("250 ENHANCEDSTATUSCODES\r\n"))
        #expect(loop.jobs.isEmpty)  // no RCPT verdict was ever asked for
    }

    @Test("A client that is not TLS after the 220 is closed")
    func garbageHandshake() {
        var loop = Loop()
        _ = loop.written()
        loop.receive(Array("EHLO c\r\nSTARTTLS\r\n".utf8))
        _ = loop.written()
        loop.receive([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5])
        #expect(loop.closed)
    }
}
