import ComputePool
import Fetch
import Foundation
import Logging
import OutboundSocket
import PosternTestSupport
import SMTPClient
import SMTPServer
import ServerTLS
import SocketServer
import Testing

/// Postern's SMTP server on loopback port 0 with a recording sink, optionally with STARTTLS.
private final class LoopbackMX {
    let group: EventLoopGroup
    let server: SMTPServer
    let port: Int
    let sink = RecordingSink()

    init(_ configure: (inout SMTPServerConfiguration) -> Void = { _ in }) throws {
        group = try EventLoopGroup(count: 1, pollInterval: .milliseconds(20))
        group.startOnce()
        var configuration = SMTPServerConfiguration(host: "127.0.0.1", port: 0, hostname: "mx.local.test")
        configure(&configuration)
        server = SMTPServer(configuration: configuration, sink: sink, group: group, logger: Logger(label: "test.mx"))
        port = try server.start()
    }

    func stop() async {
        await server.shutdown()
        await group.shutdownJoining()
    }
}

private let pool = WorkerPool(threads: 2, queueLimit: 16, name: "test-smtpc")

private func session(
    _ messages: [SMTPOutboundMessage], tls: SMTPTLSPolicy = .opportunistic, credentials: SMTPCredentials? = nil
) -> SMTPClientSession {
    var configuration = SMTPClientConfiguration(heloName: "out.postern.test", tls: tls, credentials: credentials)
    configuration.timeouts = SMTPClientTimeouts(all: .seconds(20))
    return SMTPClientSession(configuration: configuration, messages: messages)
}

@Suite("SMTPClient against real servers on loopback: Postern's SMTPServer, and aiosmtpd as a smarthost", .serialized)
struct SMTPClientLoopbackTests {
    @Test("pipelined delivery: 250 for two recipients, 550 for an unknown one, text dot-stuffed and restored")
    func deliversPipelined() async throws {
        let mx = try LoopbackMX()
        let driver = try SMTPClientDriver(policy: AddressPolicy(allowPrivate: true), resolver: NoLookups())
        let text = "From: agent@postern.test\nSubject: dots\n\n.leading dot\n..two dots\n.\nend"
        let message = SMTPOutboundMessage(
            sender: "agent@postern.test", recipients: ["alice@local.test", "nobody@local.test", "bob@local.test"],
            content: Array(text.utf8))
        let report = await driver.deliver(
            session([message]), host: "127.0.0.1", port: mx.port, requireVerifiedTLS: false, on: pool)
        #expect(report.results[0].map(\.status.name) == ["delivered", "failed", "delivered"])
        #expect(report.results[0][1].reply?.code == 550)
        #expect(report.results[0][1].reply?.enhanced?.description == "5.1.1")
        #expect(report.results[0][0].detail == "250 2.0.0 OK queued as Q1")
        #expect(report.address == "127.0.0.1" && !report.usedTLS)
        #expect(mx.sink.messages.count == 1)
        #expect(mx.sink.messages.first?.envelope.recipients == ["alice@local.test", "bob@local.test"])
        #expect(mx.sink.messages.first?.envelope.heloName == "out.postern.test")
        let expected = text.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
        #expect(mx.sink.messages.first.map { String(decoding: $0.data, as: UTF8.self) } == expected)
        await mx.stop()
    }

    @Test("a 4xx on one recipient (the server's recipient cap, 452) and 250 on the other; two messages, one session")
    func transientAndAccepted() async throws {
        let mx = try LoopbackMX { $0.maxRecipients = 1 }
        let driver = try SMTPClientDriver(policy: AddressPolicy(allowPrivate: true), resolver: NoLookups())
        let first = SMTPOutboundMessage(
            sender: "agent@postern.test", recipients: ["alice@local.test", "bob@local.test"], content: Array("A".utf8))
        let second = SMTPOutboundMessage(
            sender: "other@postern.test", recipients: ["carol@local.test"], content: Array("B".utf8))
        let report = await driver.deliver(
            session([first, second]), host: "127.0.0.1", port: mx.port, requireVerifiedTLS: false, on: pool)
        #expect(report.results.map { $0.map(\.status.name) } == [["delivered", "deferred"], ["delivered"]])
        #expect(report.results[0][1].reply?.code == 452)
        #expect(mx.sink.messages.map(\.envelope.mailFrom) == ["agent@postern.test", "other@postern.test"])
        await mx.stop()
    }

    @Test("STARTTLS required and not offered: nothing is delivered, every recipient deferred")
    func tlsRequiredNotOffered() async throws {
        let mx = try LoopbackMX()
        let driver = try SMTPClientDriver(policy: AddressPolicy(allowPrivate: true), resolver: NoLookups())
        let message = SMTPOutboundMessage(sender: "a@postern.test", recipients: ["alice@local.test"], content: [65])
        let report = await driver.deliver(
            session([message], tls: .required), host: "127.0.0.1", port: mx.port, requireVerifiedTLS: false, on: pool)
        #expect(report.results[0].map(\.status.name) == ["deferred"])
        #expect(report.results[0][0].detail == "451 4.7.0 TLS required but STARTTLS not offered")
        #expect(mx.sink.messages.isEmpty)
        await mx.stop()
    }

    @Test("STARTTLS offered: the session runs over TLS; the certificate verifies against the given roots by name")
    func startTLS() async throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let context = try certificate.context()
        let mx = try LoopbackMX { $0.tls = context }
        let message = SMTPOutboundMessage(sender: "a@postern.test", recipients: ["alice@local.test"], content: [65])
        // Opportunistic with the system's roots: TLS is used, the self-signed certificate does not verify.
        let opportunistic = try SMTPClientDriver(policy: AddressPolicy(allowPrivate: true), resolver: NoLookups())
        let first = await opportunistic.deliver(
            session([message]), host: "localhost", port: mx.port, requireVerifiedTLS: false, on: pool)
        #expect(first.results[0].map(\.status.name) == ["delivered"])
        #expect(first.usedTLS && !first.certificateVerified)
        // Verified: the certificate is the trust root and names localhost.
        let verifying = try SMTPClientDriver(
            policy: AddressPolicy(allowPrivate: true), resolver: NoLookups(),
            trustedRootsPEMFile: certificate.certificateFile)
        let second = await verifying.deliver(
            session([message], tls: .required), host: "localhost", port: mx.port, requireVerifiedTLS: true, on: pool)
        #expect(second.results[0].map(\.status.name) == ["delivered"])
        #expect(second.usedTLS && second.certificateVerified)
        // Verification required with the system's roots: the handshake fails, nothing is delivered.
        let refused = await opportunistic.deliver(
            session([message], tls: .required), host: "localhost", port: mx.port, requireVerifiedTLS: true, on: pool)
        #expect(refused.results[0].map(\.status.name) == ["deferred"])
        #expect(refused.results[0][0].detail.hasPrefix("451 4.7.0 TLS with localhost"))
        #expect(mx.sink.messages.count == 2)
        await mx.stop()
    }

    @Test("the outbound address policy: a loopback receiver is refused unless private addresses are allowed")
    func addressPolicy() async throws {
        let mx = try LoopbackMX()
        let driver = try SMTPClientDriver(policy: AddressPolicy(allowPrivate: false), resolver: NoLookups())
        let message = SMTPOutboundMessage(sender: "a@postern.test", recipients: ["alice@local.test"], content: [65])
        let report = await driver.deliver(
            session([message]), host: "127.0.0.1", port: mx.port, requireVerifiedTLS: false, on: pool)
        #expect(report.results[0].map(\.status.name) == ["deferred"])
        #expect(report.address == nil)
        #expect(report.results[0][0].detail == "451 4.4.1 cannot connect to 127.0.0.1: address not allowed (loopback)")
        #expect(mx.sink.messages.isEmpty)
        await mx.stop()
    }
}

@Suite("SMTPClient relaying through aiosmtpd, a smarthost that requires STARTTLS and AUTH", .serialized)
struct SMTPClientSmarthostTests {
    @Test(
        "STARTTLS, AUTH PLAIN: 250, 450 and 550 per recipient; a wrong password defers every recipient",
        .enabled(if: Smarthost.isAvailable, "aiosmtpd is not installed (pip install aiosmtpd)"))
    func relay() async throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let smarthost = try Smarthost(certificateFile: certificate.certificateFile, keyFile: certificate.keyFile)
        let driver = try SMTPClientDriver(
            policy: AddressPolicy(allowPrivate: true), resolver: NoLookups(),
            trustedRootsPEMFile: certificate.certificateFile)
        let message = SMTPOutboundMessage(
            sender: "agent@postern.test", recipients: ["alice@far.test", "later@far.test", "nobody@far.test"],
            content: Array("Subject: relayed\r\n\r\n.dot\r\n".utf8))
        let good = SMTPCredentials(username: "relay", password: "secret")
        let report = await driver.deliver(
            session([message], tls: .required, credentials: good), host: "localhost", port: smarthost.port,
            requireVerifiedTLS: true, on: pool)
        let wrong = SMTPCredentials(username: "relay", password: "wrong")
        let refused = await driver.deliver(
            session([message], tls: .required, credentials: wrong), host: "localhost", port: smarthost.port,
            requireVerifiedTLS: true, on: pool)
        let received = try smarthost.stop()
        #expect(report.results[0].map(\.status.name) == ["delivered", "deferred", "failed"])
        #expect(report.results[0][1].detail == "450 4.2.0 Mailbox busy, try later")
        #expect(report.results[0][2].detail == "550 5.1.1 No such user")
        #expect(report.usedTLS && report.certificateVerified)
        #expect(refused.results[0].map(\.status.name) == ["deferred", "deferred", "deferred"])
        #expect(refused.results[0][0].reply?.code == 535)
        #expect(
            received == [
                Smarthost.Received(
                    from: "agent@postern.test", to: ["alice@far.test"], data: "Subject: relayed\r\n\r\n.dot\r\n",
                    tls: true, auth: true)
            ])
    }
}
