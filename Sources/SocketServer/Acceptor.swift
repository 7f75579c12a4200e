import Glibc
import Synchronization

/// A server's listening socket in one loop's epoll set. Every loop of the group has one, watching the
/// same socket with `EPOLLEXCLUSIVE`, and serves what it accepts itself, as nginx's workers do: the
/// kernel wakes a loop that is waiting in `epoll_wait` (the first registered first), a busy loop takes
/// what is queued when it next waits, and no connection is handed from loop to loop. Accepts in batches.
///
/// The trade-off, nginx's too: connections go to loops that are waiting, so under light load they
/// gather on few loops, which keeps the others asleep (measured: no context switches per request where
/// an even spread cost 0.3), and a keep-alive pool opened while the server is quiet can sit on one loop
/// until its connections are recycled. `SO_REUSEPORT` per loop would spread by hash instead, with a
/// queue per loop behind which a connection waits while another loop idles. Kernels before 4.5 refuse
/// `EPOLLEXCLUSIVE`; there every loop watches the listener plainly, and all wake for each connection.
///
/// Out of descriptors (`EMFILE` and friends) it closes its reserve descriptor to accept and close
/// the waiting client (so the client is told at once instead of hanging), then stops watching the
/// listener for a pause on the loop's own timer — no Dispatch timer, which libdispatch may be unable
/// to create with every descriptor taken — and accepts what queued meanwhile when the pause ends.
///
/// `@unchecked Sendable`: every mutable field is used only on `loop`.
final class Acceptor: LoopRegistrant, @unchecked Sendable {
    /// Accepts per readiness report, so one busy listener cannot starve the loop's connections.
    static var batch: Int { 128 }

    let listener: SharedListener
    var fd: Int32 { listener.fd }
    let loop: EventLoop
    unowned let server: StreamServer
    var owner: ObjectIdentifier { ObjectIdentifier(server) }
    var deadline: UInt64?
    var timerEntry: UInt64?
    private var reserveFD: Int32
    private var closed = false
    /// `Epoll.acceptable`, or plain `EPOLLIN` on a kernel that refuses `EPOLLEXCLUSIVE`.
    private var interest = Epoll.acceptable

    init(listener: SharedListener, server: StreamServer, loop: EventLoop) {
        self.listener = listener
        self.server = server
        self.loop = loop
        reserveFD = Self.openReserve()
    }

    /// The descriptor kept in reserve, closed to accept and drop one client when descriptors run out.
    private static func openReserve() -> Int32 {
        open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// Adds the listener to the loop's epoll set. On the loop.
    func startWatching() throws {
        do {
            try loop.register(self, interest: interest)
        } catch let error as SystemCallError where error.errno == EINVAL {
            interest = Epoll.readableListener
            try loop.register(self, interest: interest)
        }
    }

    func ready(_ events: UInt32) {
        acceptPending()
    }

    private func acceptPending() {
        for _ in 0..<Self.batch {
            guard !closed else { return }
            let accepted: (fd: Int32, peer: String)?
            do {
                accepted = try Socket.accept(fd)
            } catch let error as SystemCallError {
                switch error.errno {
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    pauseForExhaustion()
                    return
                default:
                    continue  // ECONNABORTED, EPROTO and the like: that one connection is gone
                }
            } catch {
                return
            }
            guard let (client, peer) = accepted else { return }
            server.adopt(fd: client, peer: peer, on: loop)
        }
    }

    private func pauseForExhaustion() {
        server.logger.debug("accept: out of file descriptors; pausing accept")
        if reserveFD >= 0 {
            SystemCall.close(reserveFD)
            if let (client, _) = try? Socket.accept(fd) { SystemCall.close(client) }
            reserveFD = Self.openReserve()
        }
        guard deadline == nil else { return }
        loop.unwatch(self)
        resumeAfterPause()
    }

    /// Arms the timer that watches the listener again after `acceptPauseOnExhaustion`.
    private func resumeAfterPause() {
        deadline = loop.clock() &+ ConnectionTimeouts.nanoseconds(server.configuration.acceptPauseOnExhaustion)
        loop.scheduleTimer(for: self)
    }

    func timerFired() {
        deadline = nil
        guard !closed else { return }
        // Another loop may have taken the number this one freed while descriptors were short.
        if reserveFD < 0 { reserveFD = Self.openReserve() }
        do {
            try loop.watch(self, interest: interest)
        } catch {
            // ENOSPC (the epoll watch limit) or ENOMEM, likely in the same flood: try again after a pause
            // rather than stop accepting on this loop for good.
            server.logger.warning("accept: could not watch the listener again; retrying after a pause")
            resumeAfterPause()
            return
        }
        acceptPending()
    }

    func beginShutdown() {
        forceClose()
    }

    func forceClose() {
        guard !closed else { return }
        closed = true
        deadline = nil
        loop.deregister(self)
        listener.release()
        if reserveFD >= 0 {
            SystemCall.close(reserveFD)
            reserveFD = -1
        }
    }
}

/// The listening descriptor that a server's acceptors share: closed when the last of them lets go,
/// so no loop accepts on a number the system has given to another descriptor.
final class SharedListener: Sendable {
    let fd: Int32
    private let holders: Atomic<Int>

    init(fd: Int32, holders: Int) {
        self.fd = fd
        self.holders = Atomic(holders)
    }

    /// One holder is done with the descriptor; the last one closes it.
    func release() {
        if holders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { SystemCall.close(fd) }
    }
}
