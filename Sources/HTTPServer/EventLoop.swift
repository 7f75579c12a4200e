import Dispatch
import Foundation
import Glibc
import HTTP1
import Synchronization

/// One serial event queue and everything confined to it: its connections, a read buffer, the
/// cached `Date` header and the timeout sweep.
///
/// Readiness: the queue's sockets sit in its own level-triggered epoll set, and one poller thread
/// per queue blocks in `epoll_wait` and handles each batch inside `queue.sync`, so socket work is
/// serialized with the queue's timers and completions exactly like any block on the queue.
/// Measured CPU per `GET /healthz` (wrk -t1 -c64, same machine, server process time / requests):
/// a `DispatchSourceRead` per connection about 26 µs (libdispatch disarms and re-arms the socket
/// with two `epoll_ctl`, an `ioctl(FIONREAD)` and a thread wake-up around every handler run); one
/// `DispatchSourceRead` per queue over the epoll set 17-22 µs (still a manager-thread wake-up per
/// batch); this poller 14-15 µs; nginx 10-11 µs. `queue.sync` from the poller runs the block on
/// the poller thread itself, so the fast path has no thread hop at all.
///
/// `@unchecked Sendable`: every mutable field is read and written only on `queue` (the server
/// reaches it only through `queue.async`), so no two threads touch them at once.
final class EventLoop: @unchecked Sendable {
    /// Marks the queue so a completion can tell whether it already runs on it.
    static let key = DispatchSpecificKey<ObjectIdentifier>()

    let index: Int
    let queue: DispatchQueue
    let core: ServerCore
    /// Shared by every read on this queue; only one read runs at a time on a serial queue.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Connections by socket descriptor (unique while open; removed before the descriptor closes).
    private var connections: [Int32: Connection] = [:]
    /// The queue's epoll set; nil after `stop()`.
    private(set) var epoll: Epoll?
    /// Set by `stop()`; the poller thread exits within one wait interval.
    private let pollerStopped = Atomic<Bool>(false)
    private var sweepTimer: DispatchSourceTimer?
    private var dateSecond: Int = -1
    private var dateBytes: [UInt8] = []
    private var requestCounter: UInt64 = 0

    init(index: Int, core: ServerCore) throws {
        self.index = index
        self.core = core
        epoll = try Epoll()
        queue = DispatchQueue(label: "postern.http.event-\(index)", qos: .userInitiated)
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        queue.setSpecific(key: EventLoop.key, value: ObjectIdentifier(self))
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Whether the caller runs on this loop's queue.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: EventLoop.key) == ObjectIdentifier(self)
    }

    var connectionCount: Int { connections.count }

    /// Starts the poller thread and the periodic timeout sweep. Call on `queue`.
    func start() {
        if let epoll {
            let thread = Thread { [self] in self.poll(epoll) }
            thread.name = "postern-http-poll-\(index)"
            thread.start()
        }
        startSweeping()
    }

    /// The poller thread's loop: wait for ready sockets, handle them on the queue (inline, on this
    /// thread, via `sync`). Level-triggered, so whatever is left unread is reported again.
    private func poll(_ epoll: Epoll) {
        while !pollerStopped.load(ordering: .relaxed) {
            let count = epoll.wait(milliseconds: 100)
            guard count > 0 else { continue }
            queue.sync {
                epoll.forEachReady(count) { fd, events in
                    connections[fd]?.readable(events: events)
                }
            }
        }
    }

    /// Stops the poller and the sweep; the epoll set closes when the poller lets go of it. Call on
    /// `queue` after every connection is closed.
    func stop() {
        sweepTimer?.cancel()
        sweepTimer = nil
        pollerStopped.store(true, ordering: .relaxed)
        epoll = nil
    }

    private func startSweeping() {
        let configuration = core.configuration
        let shortest = min(configuration.headerReadTimeout, configuration.idleTimeout, configuration.writeTimeout)
        let quarter = ConnectionTimeouts.nanoseconds(shortest) / 4
        let interval = min(max(quarter, 10_000_000), 500_000_000)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)),
            leeway: .nanoseconds(Int(interval / 10)))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
        sweepTimer = timer
    }

    /// Takes ownership of an accepted socket. Call on `queue`.
    func register(fd: Int32, peer: String, refusing: Bool) {
        let connection = Connection(fd: fd, remoteAddress: peer, loop: self, refusing: refusing)
        connections[fd] = connection
        connection.start()
        if core.isShuttingDown { connection.beginShutdown() }
    }

    /// Forgets a closed connection. Call on `queue`.
    func remove(_ connection: Connection) {
        if connections[connection.fd] === connection { connections[connection.fd] = nil }
    }

    /// Closes timed-out connections.
    private func sweep() {
        let now = core.clock()
        var expired: [Connection] = []
        for connection in connections.values where connection.isExpired(now: now) {
            expired.append(connection)
        }
        for connection in expired { connection.timedOut() }
    }

    /// Asks every connection to finish what it is doing and close. Call on `queue`.
    func beginShutdown() {
        for connection in Array(connections.values) { connection.beginShutdown() }
    }

    /// Closes every connection at once. Call on `queue`.
    func closeAll() {
        for connection in Array(connections.values) { connection.close() }
    }

    /// The `Date` header bytes, formatted at most once per second.
    func date() -> [UInt8] {
        let second = time(nil)
        if second != dateSecond {
            dateSecond = second
            dateBytes = HTTPDate.imfFixdate(unixSeconds: Int64(second))
        }
        return dateBytes
    }

    /// A new request id: 6 hex digits of per-process randomness, the queue index, then a counter
    /// in hex. At most 15 bytes for the first 2^32 requests of a queue, so Swift stores it inline
    /// (no allocation).
    func nextRequestID() -> String {
        requestCounter &+= 1
        var counter = requestCounter
        var digits = 0
        while counter > 0 {
            digits += 1
            counter >>= 4
        }
        let prefix = core.requestIDPrefixBytes
        let length = prefix.count + 1 + digits
        return String(unsafeUninitializedCapacity: length) { out in
            for i in 0..<prefix.count { out[i] = prefix[i] }
            out[prefix.count] = EventLoop.hexDigits[index & 0xF]
            var value = requestCounter
            var position = length - 1
            while value > 0 {
                out[position] = EventLoop.hexDigits[Int(value & 0xF)]
                value >>= 4
                position -= 1
            }
            return length
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
