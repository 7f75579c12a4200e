import Glibc
import Logging
import Synchronization

/// A TCP server for one protocol on a shared `EventLoopGroup`: accepts on its listening socket (from
/// the first loop's epoll set), caps open connections, spreads connections round-robin over the
/// loops, and shuts down gracefully. The protocol itself is the `Service` and its state machine.
public final class StreamServer: Sendable {
    /// The limits in force.
    public let configuration: StreamServerConfiguration
    let service: any StreamService
    let group: EventLoopGroup
    let logger: Logger
    /// Connections being served (counted against `maxConnections`).
    let servedConnections = Atomic<Int>(0)
    /// Connections over the cap that are being refused.
    let refusingConnections = Atomic<Int>(0)
    let shuttingDown = Atomic<Bool>(false)
    private let acceptor = Mutex<Acceptor?>(nil)

    /// Creates a server; nothing is accepted until `start(on:)`.
    /// - Parameters:
    ///   - configuration: connection cap and shutdown grace period.
    ///   - service: the protocol.
    ///   - group: the loops to serve on (started by its owner).
    ///   - logger: connection-level events at debug level; never peer data.
    public init(
        configuration: StreamServerConfiguration, service: any StreamService, group: EventLoopGroup, logger: Logger
    ) {
        self.configuration = configuration
        self.service = service
        self.group = group
        self.logger = logger
    }

    /// Connections open right now, including over-cap ones being refused.
    public var openConnectionCount: Int {
        servedConnections.load(ordering: .relaxed) + refusingConnections.load(ordering: .relaxed)
    }

    /// Whether `shutdown()` has begun.
    public var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    /// Starts accepting on `listener`. Also ignores `SIGPIPE` and raises the soft open-files limit.
    /// - Returns: the listener's port.
    /// - Throws: `SocketServerError` when already started or the listener cannot be watched.
    @discardableResult
    public func start(on listener: ListeningSocket) throws -> Int {
        guard let fd = listener.take() else { throw SocketServerError(code: .alreadyStarted, errno: 0) }
        SystemCall.ignoreSIGPIPE()
        let fileLimit = SystemCall.raiseOpenFileLimit()
        let loop = group.loops[0]
        let acceptor = Acceptor(fd: fd, server: self, loop: loop)
        let stored = self.acceptor.withLock { current -> Bool in
            guard current == nil else { return false }
            current = acceptor
            return true
        }
        guard stored else {
            SystemCall.close(fd)
            throw SocketServerError(code: .alreadyStarted, errno: 0)
        }
        let registered: Int32 = loop.queue.sync {
            do {
                try loop.register(acceptor, interest: Epoll.readable)
                return 0
            } catch let error as SystemCallError {
                return error.errno
            } catch {
                return EBADF
            }
        }
        guard registered == 0 else {
            SystemCall.close(fd)
            throw SocketServerError(code: .eventLoopSetupFailed, errno: registered)
        }
        logger.debug(
            "listening",
            metadata: [
                "host": .string(listener.host), "port": .stringConvertible(listener.port),
                "loops": .stringConvertible(group.loops.count), "openFileLimit": .stringConvertible(fileLimit),
            ])
        return listener.port
    }

    /// Takes an accepted socket: counts it against the cap and registers it on the next loop. On `from`.
    func adopt(fd: Int32, peer: String, from loop: EventLoop, nextLoop: inout Int) {
        let refusing = servedConnections.load(ordering: .relaxed) >= configuration.maxConnections
        if refusing {
            let refused = refusingConnections.add(1, ordering: .relaxed).newValue
            if refused > configuration.maxRefusingConnections || isShuttingDown {
                refusingConnections.subtract(1, ordering: .relaxed)
                SystemCall.close(fd)
                return
            }
        } else {
            servedConnections.add(1, ordering: .relaxed)
        }
        nextLoop = (nextLoop + 1) % group.loops.count
        let target = group.loops[nextLoop]
        if target === loop {
            register(fd: fd, peer: peer, refusing: refusing, on: target)
        } else {
            target.execute { self.register(fd: fd, peer: peer, refusing: refusing, on: target) }
        }
    }

    private func register(fd: Int32, peer: String, refusing: Bool, on loop: EventLoop) {
        let machine = service.makeMachine(peer: peer, refusing: refusing, loop: loop)
        let connection = StreamConnection(
            fd: fd, owner: ObjectIdentifier(self), loop: loop, service: service, machine: machine
        ) { [self] in
            if refusing {
                refusingConnections.subtract(1, ordering: .relaxed)
            } else {
                servedConnections.subtract(1, ordering: .relaxed)
            }
        }
        connection.start()
        if isShuttingDown { connection.beginShutdown() }
    }

    /// Stops accepting, lets work in flight finish and be written, closes idle connections, and
    /// returns when every connection is closed (or the grace period has passed, after which what is
    /// left is closed). The loops keep running: their owner stops them.
    public func shutdown() async {
        guard !shuttingDown.exchange(true, ordering: .relaxed) else {
            await waitForConnections(deadline: group.loops[0].clock())
            return
        }
        if let acceptor = acceptor.withLock({ $0 }) {
            await run(on: acceptor.loop) { acceptor.forceClose() }
        }
        let owner = ObjectIdentifier(self)
        for loop in group.loops { loop.execute { loop.beginShutdown(owner: owner) } }
        let clock = group.loops[0].clock
        let grace = ConnectionTimeouts.nanoseconds(configuration.shutdownGracePeriod)
        await waitForConnections(deadline: clock() &+ grace)
        for loop in group.loops { loop.execute { loop.closeAll(owner: owner) } }
        await waitForConnections(deadline: clock() &+ 1_000_000_000)
        logger.debug("server stopped")
    }

    private func run(on loop: EventLoop, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute {
                body()
                continuation.resume()
            }
        }
    }

    private func waitForConnections(deadline: UInt64) async {
        let clock = group.loops[0].clock
        while openConnectionCount > 0 && clock() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
