import Logging
import MailDoorServer
import POP3
import PosternTestSupport
import Testing

@testable import POP3Server

/// POP3's TLS through the one TLS transport SMTP and IMAP use, with no socket (``MailTLSLoop``): on the POP3S port
/// (`POSTERN_POP3S_PORT`, RFC 8314) the greeting itself is encrypted, `STLS` is not offered and a remote client may
/// sign in at once; plaintext there is never read as a command.
@Suite("POP3 server: the implicit-TLS port")
struct POP3TLSTests {
    typealias Loop = MailTLSLoop<POP3Request>

    @Test("POP3S: nothing in plaintext, the greeting after the handshake, no STLS, USER and SASL to a remote client")
    func implicitTLS() throws {
        var loop = try Loop(pop3Peer: "192.0.2.7", implicitTLS: true)
        #expect(loop.written().isEmpty)
        let (client, greeting) = loop.handshake()
        #expect(client.isEstablished)
        #expect(greeting == "+OK Postern POP3 ready\r\n")
        let capabilities = loop.exchange(client, "CAPA\r\n")
        #expect(capabilities.contains("\r\nUSER\r\n") && capabilities.contains("\r\nSASL PLAIN LOGIN OAUTHBEARER"))
        #expect(!capabilities.contains("STLS"))
        #expect(loop.exchange(client, "STLS\r\n") == "-ERR TLS is already active\r\n")
        #expect(loop.exchange(client, "USER ann\r\n") == "+OK Send PASS\r\n")
        _ = loop.exchange(client, "PASS secret\r\n")
        #expect(loop.jobs == [.login(username: "ann", password: "secret")])
        #expect(!loop.closed)
    }

    @Test("plaintext on the POP3S port is not TLS: the connection closes, nothing is read as a command")
    func plaintextOnImplicitPort() throws {
        var loop = try Loop(pop3Peer: "192.0.2.7", implicitTLS: true)
        loop.receive("USER ann\r\nPASS secret\r\n")
        _ = loop.written()
        #expect(loop.closed && loop.jobs.isEmpty)
    }

    @Test("the plain port with a certificate: STLS offered to a remote client, which may not sign in before it")
    func startTLSPort() throws {
        var loop = try Loop(pop3Peer: "192.0.2.7", implicitTLS: false)
        #expect(loop.writtenText() == "+OK Postern POP3 ready\r\n")
        loop.receive("CAPA\r\nUSER ann\r\n")
        let answer = loop.writtenText()
        #expect(answer.contains("\r\nSTLS\r\n") && !answer.contains("\r\nUSER\r\n"))
        #expect(answer.hasSuffix("-ERR Sign in only after STLS\r\n"))
    }
}

extension MailTLSLoop where Request == POP3Request {
    /// A POP3 connection from `peer`, on the `STLS` port or the implicit-TLS one, whose sign-ins are all refused.
    init(pop3Peer peer: String, implicitTLS: Bool) throws {
        try self.init(
            make: { store in
                var configuration = POP3ServerConfiguration(port: 0)
                configuration.tls = MailDoorHolder.tlsContext
                configuration.implicitTLS = implicitTLS
                let service = MailService(
                    listener: POP3Listener(
                        configuration: configuration, store: store, signIn: RefusingSignIn(),
                        logger: Logger(label: "pop3-tls-tests")),
                    draining: { false })
                return service.makeMachine(peer: peer, refusing: false, now: Self.now)
            },
            request: { ($0 as! MailJob<POP3Listener>).request })
    }
}
