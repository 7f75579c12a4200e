import Glibc

/// A server's listening socket in the first loop's epoll set: accepts in batches and hands each
/// connection to the server.
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

    let fd: Int32
    let loop: EventLoop
    unowned let server: StreamServer
    var owner: ObjectIdentifier { ObjectIdentifier(server) }
    var deadline: UInt64?
    var timerEntry: UInt64?
    private var reserveFD: Int32
    private var nextLoop = 0
    private var closed = false

    init(fd: Int32, server: StreamServer, loop: EventLoop) {
        self.fd = fd
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
            server.adopt(fd: client, peer: peer, from: loop, nextLoop: &nextLoop)
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
        do {
            try loop.modify(fd, interest: 0)
        } catch {
            return
        }
        deadline = loop.clock() &+ ConnectionTimeouts.nanoseconds(server.configuration.acceptPauseOnExhaustion)
        loop.scheduleTimer(for: self)
    }

    func timerFired() {
        deadline = nil
        guard !closed else { return }
        try? loop.modify(fd, interest: Epoll.readable)
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
        SystemCall.close(fd)
        if reserveFD >= 0 {
            SystemCall.close(reserveFD)
            reserveFD = -1
        }
    }
}
