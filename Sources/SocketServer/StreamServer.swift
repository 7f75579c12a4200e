import ClientAddress
import Glibc
import Logging
import Synchronization

/// A TCP server for one protocol on a shared `EventLoopGroup`: every loop accepts on its listening
/// socket and serves what it accepted (see `Acceptor`), caps open connections, and shuts down
/// gracefully. The protocol itself is the `Service` and its state machine.
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
    /// Connections served per client, when `maxConnectionsPerClient` is set; a client leaves the table with
    /// its last connection, so it holds at most `maxConnections` entries.
    private let perClient = Mutex<[ClientAddressKey: Int]>([:])
    private let acceptors = Mutex<[Acceptor]>([])

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
        let listening = SharedListener(fd: fd, holders: group.loops.count)
        let acceptors = group.loops.map { Acceptor(listener: listening, server: self, loop: $0) }
        let stored = self.acceptors.withLock { current -> Bool in
            guard current.isEmpty else { return false }
            current = acceptors
            return true
        }
        guard stored else {
            // Closes each acceptor's reserve descriptor, and the listener with the last of them.
            for acceptor in acceptors { acceptor.loop.queue.sync { acceptor.forceClose() } }
            throw SocketServerError(code: .alreadyStarted, errno: 0)
        }
        for acceptor in acceptors {
            precondition(!acceptor.loop.inLoop, "start(on:) called on a loop would wait for that loop")
            let registered: Int32 = acceptor.loop.queue.sync {
                do {
                    try acceptor.startWatching()
                    return 0
                } catch let error as SystemCallError {
                    return error.errno
                } catch {
                    return EBADF
                }
            }
            guard registered == 0 else {
                for acceptor in acceptors { acceptor.loop.queue.sync { acceptor.forceClose() } }
                self.acceptors.withLock { $0 = [] }
                throw SocketServerError(code: .eventLoopSetupFailed, errno: registered)
            }
        }
        logger.debug(
            "listening",
            metadata: [
                "host": .string(listener.host), "port": .stringConvertible(listener.port),
                "loops": .stringConvertible(group.loops.count), "openFileLimit": .stringConvertible(fileLimit),
            ])
        return listener.port
    }

    /// Takes an accepted socket: counts it against the cap and registers it on `loop`, which accepted
    /// it. On `loop`.
    func adopt(fd: Int32, peer: String, on loop: EventLoop) {
        // Counted first and checked after, in one atomic step: every loop adopts at once, so a separate
        // read and add would let two loops both take the last place.
        var refusing = servedConnections.add(1, ordering: .relaxed).newValue > configuration.maxConnections
        var client: ClientAddressKey? = nil
        let proxied = isBalancer(peer)
        if !refusing, !proxied, configuration.maxConnectionsPerClient > 0 {
            let key = ClientAddressKey(peer: peer)
            refusing = !admit(key)
            if !refusing { client = key }
        }
        if refusing {
            servedConnections.subtract(1, ordering: .relaxed)
            let refused = refusingConnections.add(1, ordering: .relaxed).newValue
            if refused > configuration.maxRefusingConnections || isShuttingDown {
                refusingConnections.subtract(1, ordering: .relaxed)
                SystemCall.close(fd)
                return
            }
        }
        register(fd: fd, peer: peer, client: client, refusing: refusing, proxied: proxied, on: loop)
    }

    /// Whether `peer` is one of `proxyProtocolPeers`.
    private func isBalancer(_ peer: String) -> Bool {
        guard !configuration.proxyProtocolPeers.isEmpty, let address = IPAddress(peer) else { return false }
        return configuration.proxyProtocolPeers.contains { $0.contains(address) }
    }

    /// Counts one more connection of `client`; false (and nothing counted) when it already has
    /// `maxConnectionsPerClient`.
    private func admit(_ client: ClientAddressKey) -> Bool {
        perClient.withLock { counts in
            let count = counts[client, default: 0]
            guard count < configuration.maxConnectionsPerClient else { return false }
            counts[client] = count + 1
            return true
        }
    }

    private func release(_ client: ClientAddressKey) {
        perClient.withLock { counts in
            let count = counts[client, default: 1] - 1
            counts[client] = count > 0 ? count : nil
        }
    }

    private func register(
        fd: Int32, peer: String, client: ClientAddressKey?, refusing: Bool, proxied: Bool, on loop: EventLoop
    ) {
        let machine: any ConnectionStateMachine
        if proxied {
            let service = self.service
            machine = ProxyProtocolMachine(
                peer: peer, timeout: ConnectionTimeouts.nanoseconds(configuration.proxyHeaderTimeout)
            ) { client in service.makeMachine(peer: client, refusing: refusing, loop: loop) }
        } else {
            machine = service.makeMachine(peer: peer, refusing: refusing, loop: loop)
        }
        let connection = StreamConnection(
            fd: fd, owner: ObjectIdentifier(self), loop: loop, service: service, machine: machine
        ) { [self] in
            if refusing {
                refusingConnections.subtract(1, ordering: .relaxed)
            } else {
                servedConnections.subtract(1, ordering: .relaxed)
            }
            if let client { release(client) }
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
        for acceptor in acceptors.withLock({ $0 }) {
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
