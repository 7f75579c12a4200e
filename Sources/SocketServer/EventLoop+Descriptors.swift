import Dispatch

/// Descriptors other than connections that a loop watches for their owner: a database connection's socket whose
/// answer is waited for on the loop (PostgreSQL's non-blocking reads), with a deadline of its own. Their owner is
/// neither server, so a server's shutdown leaves them alone; the owner unwatches each before it closes it.
extension EventLoop {
    /// The loop the caller runs on (its thread in a turn, or a block sent with `execute`); nil elsewhere.
    public static var current: EventLoop? {
        DispatchQueue.getSpecific(key: EventLoop.referenceKey)?.loop
    }

    /// Watches `fd` for reading, and for writing when `writable`: `ready(readable, writable)` runs on the loop at each
    /// readiness (a hang-up or error counts as readable). Replaces an earlier watch of `fd`. Call on the loop.
    /// - Throws: `SystemCallError` when `epoll_ctl` refuses it.
    public func watchDescriptor(
        _ fd: Int32, writable: Bool, _ ready: @escaping (_ readable: Bool, _ writable: Bool) -> Void
    ) throws {
        if let old = registrants[fd] as? DescriptorWatch {
            old.ready = ready
            try modify(fd, interest: DescriptorWatch.interest(writable: writable))
            return
        }
        try register(DescriptorWatch(fd: fd, ready: ready), interest: DescriptorWatch.interest(writable: writable))
    }

    /// Changes what a watched `fd` is watched for. Call on the loop.
    /// - Throws: `SystemCallError` when `epoll_ctl` refuses it.
    public func rewatchDescriptor(_ fd: Int32, writable: Bool) throws {
        guard registrants[fd] is DescriptorWatch else { return }
        try modify(fd, interest: DescriptorWatch.interest(writable: writable))
    }

    /// Calls `expired` once at `deadline` (``clock``) unless `fd` is unwatched or given another deadline first; nil
    /// clears it. Call on the loop.
    public func setDescriptorDeadline(_ fd: Int32, _ deadline: UInt64?, _ expired: @escaping () -> Void) {
        guard let watch = registrants[fd] as? DescriptorWatch else { return }
        watch.deadline = deadline
        watch.expired = expired
        scheduleTimer(for: watch)
    }

    /// Stops watching `fd`, before its owner closes it. Call on the loop.
    public func unwatchDescriptor(_ fd: Int32) {
        guard let watch = registrants[fd] as? DescriptorWatch else { return }
        watch.deadline = nil
        deregister(watch)
    }
}

/// A loop's pointer to itself in its queue's specific data. Unowned: the queue lives and dies with the loop.
struct EventLoopReference {
    unowned(unsafe) let loop: EventLoop
}

/// A descriptor watched for an owner outside the servers (``EventLoop/watchDescriptor(_:writable:_:)``). On its loop.
final class DescriptorWatch: LoopRegistrant {
    let fd: Int32
    /// None of the servers': their shutdown does not reach it.
    let owner = ObjectIdentifier(DescriptorWatch.self)
    var deadline: UInt64?
    var timerEntry: UInt64?
    var ready: (Bool, Bool) -> Void
    var expired: () -> Void = {}

    init(fd: Int32, ready: @escaping (Bool, Bool) -> Void) {
        self.fd = fd
        self.ready = ready
    }

    static func interest(writable: Bool) -> UInt32 {
        writable ? Epoll.readable | Epoll.writable : Epoll.readable
    }

    func ready(_ events: UInt32) {
        let readable = events & (Epoll.readable | Epoll.hangUp) != 0
        ready(readable, events & Epoll.writable != 0)
    }

    func timerFired() {
        deadline = nil
        expired()
    }

    func beginShutdown() {}
    func forceClose() {}
}
