import SocketServer
import Storage

/// The server's event loop as a database's reactor (``DescriptorReactor``): how PostgreSQL's loop reads watch their
/// sockets on the loop that sent them. Made for the calling thread's loop (``current``); every loop's reactor has its
/// loop's identity.
struct LoopDescriptorReactor: DescriptorReactor {
    let loop: EventLoop

    /// The calling thread's loop's, nil off a loop.
    @Sendable static func current() -> (any DescriptorReactor)? {
        EventLoop.current.map { LoopDescriptorReactor(loop: $0) }
    }

    var identity: ObjectIdentifier { ObjectIdentifier(loop) }

    func watch(_ fd: Int32, writable: Bool, _ ready: @escaping (Bool, Bool) -> Void) throws {
        try loop.watchDescriptor(fd, writable: writable, ready)
    }

    func rewatch(_ fd: Int32, writable: Bool) throws {
        try loop.rewatchDescriptor(fd, writable: writable)
    }

    func setDeadline(_ fd: Int32, _ deadline: UInt64?, _ expired: @escaping () -> Void) {
        loop.setDescriptorDeadline(fd, deadline, expired)
    }

    func unwatch(_ fd: Int32) {
        loop.unwatchDescriptor(fd)
    }

    func now() -> UInt64 { loop.clock() }

    func execute(_ body: @escaping @Sendable () -> Void) {
        loop.execute(body)
    }
}
