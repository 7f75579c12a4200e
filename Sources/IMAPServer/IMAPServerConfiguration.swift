import BufferBudget
import ClientAddress
import Glibc
import IMAP
import MailDoorServer
import ServerTLS

/// An IMAP listener's address, limits and timeouts; the connection caps, per-client cap, PROXY protocol peers and
/// grace period are the socket server's, as SMTP's are.
public struct IMAPServerConfiguration: Sendable {
    /// Address to bind. Default `127.0.0.1`.
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one. Default 1143.
    public var port = 1143
    /// Listen backlog. Default 511.
    public var listenBacklog: Int32 = 511
    /// Most open IMAP connections; one more is answered `* BYE` and closed. Default 4096.
    public var maxConnections = 4096
    /// Most open connections from one client address; 0 for no cap. Default 16.
    public var maxConnectionsPerClient = 16
    /// Balancers whose connections begin with a PROXY header naming the client. Default none.
    public var proxyProtocolPeers: [IPNetwork] = []
    /// Longest time a shutdown waits for commands in flight. Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// The session's bounds (command and literal sizes, pipelining, autologout).
    public var limits = IMAPLimits()
    /// What the literals of every session share with the process's other mail listeners (``BufferBudget``); nil for
    /// no bound but ``limits``. The runtime gives every listener one instance.
    public var buffers: BufferBudget?
    /// The certificate and key TLS presents (SMTP's pair); nil serves no TLS (no `STARTTLS`). Default nil.
    public var tls: TLSServerContext?
    /// Whether the listener is the implicit-TLS port (IMAPS, RFC 8314): TLS from the first byte, with ``tls``.
    /// Default false: plaintext, `STARTTLS` offered when ``tls`` is set.
    public var implicitTLS = false
    /// Whether `LOGIN` and `AUTHENTICATE` are allowed without TLS from a loopback client (127.0.0.0/8, ::1); any
    /// other client sees `LOGINDISABLED` until `STARTTLS`. Default true: a password from the same host never crosses
    /// a network in the clear.
    public var plaintextOnLoopback = true
    /// Most message entries (UID, id, flags, size, date: about 140 bytes each) the listener's shared cache of
    /// selected mailboxes keeps beyond what sessions hold, summed over the mailboxes (``IMAPSnapshotCache``).
    /// Default 262,144 (about 36 MiB at most).
    public var snapshotCacheEntries = 262_144
    /// Most `ENVELOPE`s (a few hundred bytes each) the listener keeps parsed, by message id, for every session's FETCH
    /// (``IMAPEnvelopeCache``). Default 65,536 (about 20 MiB at most).
    public var envelopeCacheEntries = 65_536
    /// How long a blocked write may wait before the connection is dropped. Default 60 s.
    public var writeTimeout: Duration = .seconds(60)
    /// How many commands a loop answers itself in one turn (`FETCH`, `SEARCH`, `STATUS` on SQLite, issue 84), counted
    /// with the loop's other short work; the rest of a pipelined burst waits for its next turns, after the loop has
    /// polled its other connections. Default 8, as HTTP's short requests.
    public var shortCommandsPerTurn = 8
    /// The wall clock, Unix seconds (INTERNALDATE of an APPEND without one, UIDVALIDITY of a new mailbox).
    public var wallClock: @Sendable () -> Int64 = { Int64(time(nil)) }

    /// The defaults listed on each property, on `host` and `port`.
    public init(host: String = "127.0.0.1", port: Int = 1143) {
        self.host = host
        self.port = port
    }
}

extension IMAPServerConfiguration: MailListenerSettings {}
