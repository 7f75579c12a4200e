import Glibc
import Synchronization

/// A server's listening socket in one loop's epoll set. Every loop of the group has one, watching the
/// same socket with `EPOLLEXCLUSIVE`, and serves what it accepts itself, as nginx's workers do: the
/// kernel wakes one waiting loop per arriving connection, and a loop that is busy takes what is
/// queued when it next waits, so connections go to loops that have time for them and none is handed
/// from loop to loop. Accepts in batches.
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

    init(listener: SharedListener, server: StreamServer, loop: EventLoop) {
        self.listener = listener
        self.server = server
        self.loop = loop
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
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
            reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        guard deadline == nil else { return }
        loop.unwatch(self)
        deadline = loop.clock() &+ ConnectionTimeouts.nanoseconds(server.configuration.acceptPauseOnExhaustion)
        loop.scheduleTimer(for: self)
    }

    func timerFired() {
        deadline = nil
        guard !closed else { return }
        do {
            try loop.watch(self, interest: Epoll.acceptable)
        } catch {
            server.logger.debug("accept: could not watch the listener again; the other loops accept")
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
