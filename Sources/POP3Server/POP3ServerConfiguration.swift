import ClientAddress
import Glibc
import MailDoorServer
import POP3
import ServerTLS

/// A POP3 listener's address, limits and timeouts: the socket server's settings as IMAP's (``MailListenerSettings``),
/// and POP3's own session bounds.
public struct POP3ServerConfiguration: Sendable, MailListenerSettings {
    /// Address to bind. Default `127.0.0.1`.
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one. Default 1110.
    public var port = 1110
    /// Listen backlog. Default 511.
    public var listenBacklog: Int32 = 511
    /// Most open POP3 connections; one more is answered `-ERR [SYS/TEMP]` and closed. Default 4096.
    public var maxConnections = 4096
    /// Most open connections from one client address; 0 for no cap. Default 16.
    public var maxConnectionsPerClient = 16
    /// Balancers whose connections begin with a PROXY header naming the client. Default none.
    public var proxyProtocolPeers: [IPNetwork] = []
    /// Longest time a shutdown waits for commands in flight. Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// The session's bounds (line sizes, pipelining, autologout, failed sign-ins).
    public var limits = POP3Limits()
    /// The certificate and key `STLS` presents (SMTP's pair, as IMAP's); nil offers no `STLS`. Default nil.
    public var tls: TLSServerContext?
    /// Whether the listener is the implicit-TLS port (POP3S, RFC 8314): TLS from the first byte, with ``tls``.
    /// Default false: plaintext, `STLS` offered when ``tls`` is set.
    public var implicitTLS = false
    /// How long the TLS handshake after `STLS` may take before the connection is closed. Default 60 s.
    public var tlsHandshakeTimeout: Duration = .seconds(60)
    /// Whether `USER`/`PASS` and `AUTH PLAIN`/`LOGIN` are allowed without TLS from a loopback client (127.0.0.0/8,
    /// ::1); any other client must send `STLS` first. Default true: a password from the same host never crosses a
    /// network in the clear.
    public var plaintextOnLoopback = true
    /// How long a blocked write may wait before the connection is dropped. Default 60 s.
    public var writeTimeout: Duration = .seconds(60)
    /// The wall clock, Unix seconds (the UIDVALIDITY of an INBOX first numbered by a POP3 sign-in).
    public var wallClock: @Sendable () -> Int64 = { Int64(time(nil)) }

    /// The defaults listed on each property, on `host` and `port`.
    public init(host: String = "127.0.0.1", port: Int = 1110) {
        self.host = host
        self.port = port
    }
}
