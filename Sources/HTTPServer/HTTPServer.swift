import Dispatch
import Glibc
import HTTP1
import Logging

/// An HTTP/1.1 server on non-blocking BSD sockets and Dispatch.
///
/// One listening socket is watched by a Dispatch read source on its own queue; accepted
/// connections are spread round-robin over `eventQueueCount` serial event queues, where they are
/// read, parsed, answered and written (readiness comes from each queue's epoll set; see
/// `EventLoop`). A responder that completes inline answers on the same queue with no
/// thread hop; one that completes later is written in request order.
///
/// ```swift
/// var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
/// let server = HTTPServer(configuration: configuration, responder: myResponder, logger: logger)
/// let port = try server.start()
/// // ...
/// await server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    private let core: ServerCore
    private let loops: [EventLoop]
    /// Serializes everything about the listening socket; `listener` is only touched on it.
    private let acceptQueue = DispatchQueue(label: "postern.http.accept", qos: .userInitiated)
    private let listener = ListenerState()

    /// The listening socket's state.
    ///
    /// `@unchecked Sendable`: every field is read and written only on `acceptQueue`.
    private final class ListenerState: @unchecked Sendable {
        var fd: Int32 = -1
        var source: DispatchSourceRead?
        var suspended = false
        var reserveFD: Int32 = -1
        var nextLoop = 0
        var started = false
    }

    /// Creates a server; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - responder: called for each complete request.
    ///   - logger: receives connection-level events at debug level; never request bodies or secrets.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        // An epoll set per queue cannot fail short of descriptor exhaustion at start-up; then
        // nothing can be served and `start()` reports it.
        let core = ServerCore(configuration: configuration, responder: responder, logger: logger)
        self.core = core
        let count = max(1, configuration.eventQueueCount)
        loops = (0..<count).compactMap { try? EventLoop(index: $0, core: core) }
    }

    /// Connections open right now, including over-cap ones being refused.
    public var openConnectionCount: Int { core.openConnectionCount }

    /// Binds, listens and starts accepting.
    ///
    /// A started server keeps itself alive (its listener refers to it) until `shutdown()`.
    ///
    /// Also ignores `SIGPIPE` and raises the soft open-files limit to the hard limit.
    /// - Returns: the bound port (the chosen one when the configuration asked for port 0).
    /// - Throws: `HTTPServerError` when the address cannot be bound or the server already started.
    public func start() throws -> Int {
        let configuration = core.configuration
        return try start(
            on: ListeningSocket.bind(
                host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog))
    }

    /// Starts accepting on a socket bound beforehand, which the server then owns and closes at `shutdown()`;
    /// the configuration's host, port and backlog are not used.
    ///
    /// A started server keeps itself alive (its listener refers to it) until `shutdown()`.
    ///
    /// Also ignores `SIGPIPE` and raises the soft open-files limit to the hard limit.
    /// - Parameter socket: a listening socket no server has started on.
    /// - Returns: the socket's port.
    /// - Throws: `HTTPServerError`: `.alreadyStarted` when this server started already or the socket was
    ///   handed to a server before; `.eventQueueSetupFailed`.
    public func start(on socket: ListeningSocket) throws -> Int {
        guard loops.count == max(1, core.configuration.eventQueueCount) else {
            throw HTTPServerError(code: .eventQueueSetupFailed, errno: EMFILE)
        }
        guard let fd = socket.take() else { throw HTTPServerError(code: .alreadyStarted, errno: 0) }
        SystemCall.ignoreSIGPIPE()
        let fileLimit = SystemCall.raiseOpenFileLimit()
        let bound = (fd: fd, port: socket.port)
        let listener = self.listener
        let alreadyStarted = acceptQueue.sync { () -> Bool in
            if listener.started { return true }
            listener.started = true
            listener.fd = bound.fd
            listener.reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
            let source = DispatchSource.makeReadSource(fileDescriptor: bound.fd, queue: acceptQueue)
            source.setEventHandler { [self] in self.acceptPending() }
            source.setCancelHandler { SystemCall.close(bound.fd) }
            listener.source = source
            source.resume()
            return false
        }
        if alreadyStarted {
            SystemCall.close(bound.fd)
            throw HTTPServerError(code: .alreadyStarted, errno: 0)
        }
        for loop in loops { loop.queue.async { loop.start() } }
        core.logger.debug(
            "http server listening",
            metadata: [
                "host": .string(socket.host), "port": .stringConvertible(bound.port),
                "eventQueues": .stringConvertible(loops.count), "openFileLimit": .stringConvertible(fileLimit),
            ])
        return bound.port
    }

    /// Accepts what is pending (in batches, so one busy listener cannot starve the queue). On `acceptQueue`.
    private func acceptPending() {
        let maxConnections = core.configuration.maxConnections
        for _ in 0..<128 {
            let listenFD = listener.fd
            guard listenFD >= 0 else { return }
            let accepted: (fd: Int32, peer: String)?
            do {
                accepted = try Socket.accept(listenFD)
            } catch let error as SystemCallError {
                switch error.errno {
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    handleDescriptorExhaustion(listenFD: listenFD)
                    return
                default:
                    // ECONNABORTED, EPROTO and the like: that one connection is gone; keep going.
                    continue
                }
            } catch {
                return
            }
            guard let (fd, peer) = accepted else { return }
            let refusing = core.servedConnections.load(ordering: .relaxed) >= maxConnections
            if refusing {
                let refused = core.refusingConnections.add(1, ordering: .relaxed).newValue
                if refused > ServerCore.maxRefusingConnections || core.isShuttingDown {
                    core.refusingConnections.subtract(1, ordering: .relaxed)
                    SystemCall.close(fd)
                    continue
                }
            } else {
                core.servedConnections.add(1, ordering: .relaxed)
            }
            listener.nextLoop = (listener.nextLoop + 1) % loops.count
            let loop = loops[listener.nextLoop]
            loop.queue.async { loop.register(fd: fd, peer: peer, refusing: refusing) }
        }
    }

    /// Out of descriptors: free the reserve one to accept and close the waiting connection (so the
    /// client learns at once instead of hanging), then pause accepting briefly instead of spinning
    /// on a listener that stays readable.
    private func handleDescriptorExhaustion(listenFD: Int32) {
        core.logger.debug("accept: out of file descriptors; pausing accept for 100 ms")
        if listener.reserveFD >= 0 {
            SystemCall.close(listener.reserveFD)
            if let (fd, _) = try? Socket.accept(listenFD) { SystemCall.close(fd) }
            listener.reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        guard let source = listener.source, !listener.suspended else { return }
        listener.suspended = true
        source.suspend()
        // The pause ends on a sleeping thread, not a Dispatch timer: with every descriptor taken, an
        // `asyncAfter` here never fired in about one run in ten of the EMFILE test, leaving accept paused
        // for good (libdispatch arms timers through a timerfd it may have to create at that moment).
        let acceptQueue = self.acceptQueue
        DispatchQueue.global().async { [self, listener] in
            usleep(100_000)
            acceptQueue.async {
                guard listener.suspended, let source = listener.source else { return }
                listener.suspended = false
                source.resume()
                // Accept what waited during the pause now: a resumed read source need not fire for
                // connections that were already queued when it was suspended.
                self.acceptPending()
            }
        }
    }

    /// Stops accepting, lets requests in flight finish and be written, closes idle connections,
    /// and returns when every connection is closed (or the grace period has passed, after which
    /// what is left is closed).
    public func shutdown() async {
        guard !core.shuttingDown.exchange(true, ordering: .relaxed) else {
            await waitForConnections(deadline: core.clock())
            return
        }
        let listener = self.listener
        acceptQueue.sync {
            if let source = listener.source {
                if listener.suspended {
                    listener.suspended = false
                    source.resume()
                }
                source.cancel()
                listener.source = nil
            }
            listener.fd = -1
            if listener.reserveFD >= 0 {
                SystemCall.close(listener.reserveFD)
                listener.reserveFD = -1
            }
        }
        for loop in loops { loop.queue.async { loop.beginShutdown() } }
        let grace = ConnectionTimeouts.nanoseconds(core.configuration.shutdownGracePeriod)
        await waitForConnections(deadline: core.clock() &+ grace)
        for loop in loops {
            loop.queue.async {
                loop.closeAll()
                loop.stop()
            }
        }
        await waitForConnections(deadline: core.clock() &+ 1_000_000_000)
        core.logger.debug("http server stopped")
    }

    private func waitForConnections(deadline: UInt64) async {
        while core.openConnectionCount > 0 && core.clock() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Sendable {
        /// The address could not be bound or listened on (in use, not local, no permission).
        case bindFailed
        /// `start()` was called twice.
        case alreadyStarted
        /// An event queue's epoll set could not be created (out of descriptors, or no epoll).
        case eventQueueSetupFailed
    }

    /// What failed.
    public let code: Code
    /// The `errno` of the failed call, 0 when not from a system call.
    public let errno: Int32

    /// `code` and the system's text for `errno`.
    public var description: String {
        errno == 0 ? code.rawValue : "\(code.rawValue): \(String(cString: strerror(errno)))"
    }
}
