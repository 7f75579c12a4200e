import IMAP
import Logging
import MailDoorServer
import MailStore
import PosternTestSupport
import ServerTLS
import SocketServer
import Storage
import Testing

@testable import IMAPServer

/// IMAP's TLS through the one TLS transport SMTP uses, with no socket: the test plays the event loop and a TLS client
/// over memory BIOs. A client that is not on loopback sees `LOGINDISABLED` until `STARTTLS`; on the implicit-TLS port
/// the greeting itself is encrypted.
@Suite("IMAP server: STARTTLS and the implicit-TLS port")
struct IMAPTLSTests {
    /// The loop's side of an IMAP connection (``MailTLSLoop``).
    typealias Loop = MailTLSLoop<IMAPRequest>

    @Test("a remote client: LOGINDISABLED and STARTTLS offered, LOGIN refused, then after the handshake AUTH= and LOGIN")
    func startTLS() throws {
        var loop = try Loop(peer: "192.0.2.7")
        let greeting = loop.writtenText()
        #expect(greeting.contains(" STARTTLS") && greeting.contains(" LOGINDISABLED") && !greeting.contains("AUTH="))
        loop.receive("a1 LOGIN ann secret\r\n")
        #expect(loop.writtenText().hasPrefix("a1 NO [PRIVACYREQUIRED]"))
        #expect(loop.jobs.isEmpty)
        // A command pipelined after STARTTLS in plaintext is dropped, never run inside TLS.
        loop.receive("a2 STARTTLS\r\na3 LOGIN evil injected\r\n")
        #expect(loop.writtenText() == "a2 OK Begin TLS negotiation now\r\n")
        let (client, _) = loop.handshake()
        #expect(client.isEstablished)
        let capabilities = loop.exchange(client, "a4 CAPABILITY\r\n")
        #expect(capabilities.contains(" AUTH=PLAIN") && capabilities.contains("a4 OK"))
        #expect(!capabilities.contains("STARTTLS") && !capabilities.contains("LOGINDISABLED"))
        #expect(loop.exchange(client, "a5 STARTTLS\r\n").hasPrefix("a5 BAD"))
        _ = loop.exchange(client, "a6 LOGIN ann secret\r\n")
        #expect(loop.jobs == [.login(username: "ann", password: "secret")])
        #expect(!loop.closed)
    }

    @Test("a loopback client may sign in before TLS; STARTTLS is offered to it too")
    func loopbackPlaintext() throws {
        var loop = try Loop(peer: "127.0.0.1")
        let greeting = loop.writtenText()
        #expect(greeting.contains(" STARTTLS") && greeting.contains(" AUTH=PLAIN") && !greeting.contains("LOGINDISABLED"))
        loop.receive("a1 LOGIN ann secret\r\n")
        #expect(loop.jobs == [.login(username: "ann", password: "secret")])
    }

    @Test("the implicit-TLS port: nothing in plaintext, the greeting after the handshake, no STARTTLS, AUTH= offered")
    func implicitTLS() throws {
        var loop = try Loop(peer: "192.0.2.7", implicitTLS: true)
        #expect(loop.written().isEmpty)
        let (client, greeting) = loop.handshake()
        #expect(client.isEstablished)
        #expect(greeting.hasPrefix("* OK [CAPABILITY ") && greeting.contains(" AUTH=PLAIN"))
        #expect(!greeting.contains("STARTTLS") && !greeting.contains("LOGINDISABLED"))
        _ = loop.exchange(client, "a1 LOGIN ann secret\r\n")
        #expect(loop.jobs == [.login(username: "ann", password: "secret")])
    }

    @Test("plaintext on the implicit-TLS port is not TLS: the connection closes, nothing is read as a command")
    func plaintextOnImplicitPort() throws {
        var loop = try Loop(peer: "192.0.2.7", implicitTLS: true)
        loop.receive("a1 LOGIN ann secret\r\n")
        _ = loop.written()
        #expect(loop.closed && loop.jobs.isEmpty)
    }
}

extension MailTLSLoop where Request == IMAPRequest {
    /// An IMAP connection from `peer`, on the STARTTLS port or the implicit-TLS one, whose sign-ins are all refused.
    init(peer: String, implicitTLS: Bool = false) throws {
        try self.init(
            make: { store in
                var configuration = IMAPServerConfiguration(port: 0)
                configuration.tls = MailDoorHolder.tlsContext
                configuration.implicitTLS = implicitTLS
                let service = IMAPService(
                    configuration: configuration, store: store, signIn: RefusingSignIn(),
                    logger: Logger(label: "imap-tls-tests"), draining: { false })
                return service.makeMachine(peer: peer, refusing: false, now: Self.now)
            },
            request: { ($0 as! IMAPJob).request })
    }
}
