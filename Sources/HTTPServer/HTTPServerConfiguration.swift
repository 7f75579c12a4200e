import Foundation
import HTTP1
import SocketServer

/// How an `HTTPServer` listens and how long it waits for clients.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind (`127.0.0.1`, `0.0.0.0`, `::1`). Default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (see `HTTPServer.start()`). Default 8080.
    public var port: Int = 8080
    /// How many event loops serve connections when the server makes its own `EventLoopGroup`.
    /// Default: the active processor count.
    ///
    /// Handlers on the loops never block, so one loop per core keeps every core busy without
    /// oversubscribing them; more loops would only add context switches, fewer would leave a core
    /// idle under load. Each loop has one thread that waits in `epoll_wait` and runs its work on the
    /// loop's serial queue (`sync`), so a loop costs one mostly-running thread.
    public var eventQueueCount: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Most open client connections; one more is answered `503` with `Connection: close`. Default 4096.
    public var maxConnections: Int = 4096
    /// Most open connections from one client address (IPv6 per /64, the socket peer: behind a proxy, the
    /// proxy); one more is answered `503` with `Connection: close`, as over the global cap. 0 for no such cap.
    /// Default 512, an eighth of the global cap: half-sent headers on every slot no longer lock others out.
    public var maxConnectionsPerClient: Int = 512
    /// Longest time from the first byte of a request to its last (slow clients). Default 10 s.
    public var headerReadTimeout: Duration = .seconds(10)
    /// Longest time a keep-alive connection may sit without a request, counted from the last answer written (never
    /// while an answer is built, however long that takes). Default 30 s.
    public var idleTimeout: Duration = .seconds(30)
    /// Longest time a response may wait for a client that does not read it, counted from the later of its encoding
    /// and the last bytes the socket took. Default 30 s.
    public var writeTimeout: Duration = .seconds(30)
    /// Longest time `shutdown()` waits for requests in flight before closing what is left. Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// Most requests of one connection in flight at once (pipelining); reading pauses beyond. Default 16.
    public var maxPipelinedRequests: Int = 16
    /// Most requests of short routes (`HTTPRoute.shortWork`: a signature, an HMAC, a point read, run to completion on
    /// the loop) a loop answers in one turn; the rest wait for its next turns, after it has polled its other
    /// connections. Default 8: about 2 ms of RSA-2048 signatures between two polls.
    public var shortRequestsPerTurn: Int = 8
    /// Most bytes of an open-ended response (`HTTPAnswer.stream`) left unsent for a slow reader; a write past it
    /// ends the stream instead of growing the output. Default 256 KiB.
    public var maxStreamBufferedBytes: Int = 256 * 1024
    /// The parser limits.
    public var limits: HTTPParserLimits = HTTPParserLimits()
    /// Where the access log goes (one line per answered request, gathered per loop and written once
    /// per loop turn); nil for none. Default nil.
    public var accessLog: (any LineSink)?
    /// The label access-log lines carry, as a `Logger` label would. Default `postern`.
    public var accessLogLabel: String = "postern"
    /// The `Server` header value. Default `Postern`.
    public var serverName: String = "Postern"
    /// The listen backlog; the kernel caps it at `net.core.somaxconn`. Default 4096.
    public var listenBacklog: Int32 = 4096
    /// The monotonic clock in nanoseconds used for every timeout; injected so tests can drive it.
    public var clock: @Sendable () -> UInt64 = EventLoopGroup.monotonicNanoseconds
    /// Unix seconds now, for the `Date` header and the access log's timestamps; the system's clock by default, the
    /// runtime's injected wall clock in Postern.
    public var wallClock: @Sendable () -> Int = { Int(time(nil)) }

    /// The defaults listed on each property.
    public init() {}

    /// Creates a configuration with the listen address set and the other values at their defaults.
    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }

    /// The longest epoll wait of loops made for this server: a quarter of the shortest timeout, between 10 ms
    /// and 500 ms, so that deadlines of an injected clock are noticed soon enough.
    public var pollInterval: Duration {
        min(max(min(headerReadTimeout, idleTimeout, writeTimeout) / 4, .milliseconds(10)), .milliseconds(500))
    }
}
