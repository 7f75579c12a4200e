import BufferBudget
import ClientAddress
import Glibc
import ServerTLS

/// How an `SMTPServer` listens, what it accepts and how long it waits for clients.
public struct SMTPServerConfiguration: Sendable {
    /// The address to bind (`127.0.0.1`, `0.0.0.0`, `::1`). Default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (see `SMTPServer.start()`). Default 2525 (25 needs root).
    public var port: Int = 2525
    /// The name in the greeting (`220 <hostname> ESMTP Postern`) and the first EHLO line. Default `localhost`.
    public var hostname: String = "localhost"
    /// Largest message accepted, in bytes of message text after dot-unstuffing (CRLF line ends counted),
    /// advertised as `SIZE`. A `MAIL FROM` declaring more gets 552 at once; a message that turns out
    /// larger is read to its end, not kept, and answered 552. It also bounds one session's memory: the
    /// text is held until the sink has stored it; ``buffers`` bounds every session's together. Default 25 MiB.
    public var maxMessageBytes: Int = 25 * 1024 * 1024
    /// What the messages being read by every session share with the process's other mail listeners
    /// (``BufferBudget``): a message the budget cannot hold is read to its end, not kept, and answered `452 4.3.1`.
    /// Nil for no bound but ``maxMessageBytes`` per session. The runtime gives every listener one instance.
    public var buffers: BufferBudget?
    /// Most accepted recipients of one message; one more gets `452 4.5.3`. Default 100 (RFC 5321 §4.5.3.1.8).
    public var maxRecipients: Int = 100
    /// Longest command line, CRLF included; a longer one is discarded to its end and answered 500.
    /// Default 1000: RFC 5321's 512 plus room for the `SIZE` and `BODY` parameters of clients that
    /// add more than the RFC budgets.
    ///
    /// Message text lines have no limit of their own: the text is parsed as a stream and never buffered
    /// line by line, so a long line costs no more than its bytes, which `maxMessageBytes` caps. Real
    /// senders (HTML mailers, unfolded base64) exceed RFC 5321's 1000, and refusing their mail would
    /// lose it for no safety gain.
    public var maxCommandLineLength: Int = 1000
    /// Protocol errors (500, 501, 503, 555 answers) one session may make; at this many it is answered
    /// `421 4.7.0` and closed, so a client that speaks another protocol does not hold a connection. Default 20.
    public var maxProtocolErrors: Int = 20
    /// Longest wait for the client's next bytes (a command, or more message text) while it is the
    /// client's turn; then `421 4.4.2` and close. Default 300 s (RFC 5321 §4.5.3.2.7).
    public var commandTimeout: Duration = .seconds(300)
    /// Longest a session may last, whatever it sends (a `NOOP` every minute included); then `421 4.4.2` and
    /// close, once a message being stored is stored. Default 1800 s: a 25 MiB message needs about 15 KiB/s.
    public var maxSessionDuration: Duration = .seconds(1800)
    /// Longest wait for write progress on a socket the client does not read. Default 300 s.
    public var writeTimeout: Duration = .seconds(300)
    /// Most open sessions; one more is answered `421 4.3.2` and closed. Default 128. Each session may hold up to
    /// `maxMessageBytes` while its message is read and stored (128 × 25 MiB = 3.2 GiB): ``buffers`` is what bounds
    /// them together.
    public var maxConnections: Int = 128
    /// Most open sessions from one client address (IPv6 per /64, the socket peer); one more is answered
    /// `421 4.3.2` and closed, as over the global cap. 0 for no such cap. Default 16: one address holding
    /// every session kept every other sender out for minutes.
    public var maxConnectionsPerClient: Int = 16
    /// Balancers whose connections begin with a PROXY protocol header naming the client, which the session then
    /// serves (its `Received` line, its per-client cap left to the balancer). Empty (the default): none.
    public var proxyProtocolPeers: [IPNetwork] = []
    /// Longest time `shutdown()` waits for a message being received or stored before closing what is
    /// left. Default 30 s.
    public var shutdownGracePeriod: Duration = .seconds(30)
    /// The listen backlog; the kernel caps it at `net.core.somaxconn`. Default 128.
    public var listenBacklog: Int32 = 128
    /// Unix seconds now, for the `Received:` field's time. Default the system clock; a runtime gives its own.
    public var wallClock: @Sendable () -> Int64 = { Int64(time(nil)) }

    /// The certificate STARTTLS (RFC 3207) presents; nil (the default) offers no STARTTLS.
    public var tls: TLSServerContext?
    /// Whether TLS starts at the first byte, with ``tls`` (RFC 8314's implicit-TLS submission port), rather than at
    /// `STARTTLS`. Default false.
    public var implicitTLS = false
    /// Whether `MAIL` needs a successful `AUTH` first (a submission listener: the SMTP sandbox) and `AUTH PLAIN` and
    /// `LOGIN` are offered, checked by the sink's ``SMTPMailSink/authenticate(username:password:)``. Default false:
    /// no AUTH (a receiving MX).
    public var requiresAuthentication = false
    /// Failed `AUTH` attempts (`535` answers) one session may make; at this many it is answered `421 4.7.0` and
    /// closed, so one connection cannot try password after password (Postfix's `smtpd_hard_error_limit` does the
    /// same for errors). Default 3.
    public var maxAuthenticationFailures = 3
    /// Whether the listener is a message submission agent (RFC 6409, on a submission port): with
    /// ``requiresAuthentication``, `AUTH` offers `XOAUTH2` and `OAUTHBEARER` beside `PLAIN` and `LOGIN` and signs in
    /// through the sink's ``SMTPMailSink/signIn(_:client:)`` (the client's address given for the backoff), each
    /// `MAIL FROM` is the sink's to admit (``SMTPMailSink/admit(mailFrom:as:)``), and `DSN` (RFC 3461) is offered,
    /// its parameters kept on the envelope. Default false.
    public var submission = false
    /// Where `AUTH` is taken before TLS. Default ``SMTPPlaintextAuthentication/loopbackOnly``.
    public var plaintextAuthentication = SMTPPlaintextAuthentication.loopbackOnly
    /// The failure-injection rules the sessions follow, and whose (issue 71 item 4); nil (the default): none, and a
    /// session asks nothing.
    public var chaos: SMTPChaosTarget?

    /// The defaults listed on each property.
    public init() {}

    /// Creates a configuration with the listen address and greeting name set, the rest at their defaults.
    public init(host: String = "127.0.0.1", port: Int = 2525, hostname: String = "localhost") {
        self.host = host
        self.port = port
        self.hostname = hostname
    }
}

/// Whether a session may authenticate before STARTTLS, when credentials would cross the network in the clear.
public enum SMTPPlaintextAuthentication: Sendable, Equatable {
    /// Only a client on a loopback address (`127.0.0.0/8`, `::1`) may; anyone else gets `538 5.7.11` until TLS.
    case loopbackOnly
    /// Nobody may: AUTH only after STARTTLS, loopback included (a deployment behind a local proxy, and tests).
    case never
}
