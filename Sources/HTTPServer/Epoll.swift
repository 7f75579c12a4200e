import Glibc

/// A Linux epoll instance owned by one event queue (see `EventLoop` for why).
///
/// Glibc's Swift module does not export `<sys/epoll.h>`, so the three functions are looked up
/// once in the C library by name. Not a public API: C stays at this edge.
///
/// `@unchecked Sendable`: `fd` never changes and `add`/`modify`/`remove` use only locals (epoll
/// itself is thread-safe); the `events` buffer is used only by the one thread that calls `wait`
/// and `forEachReady`.
final class Epoll: @unchecked Sendable {
    /// `EPOLLIN | EPOLLRDHUP`: readable, or the peer shut its side.
    static let readable: UInt32 = 0x001 | 0x2000
    /// `EPOLLERR | EPOLLHUP`: reported even with an empty interest mask.
    static let hangUp: UInt32 = 0x008 | 0x010

    private typealias CreateFunction = @convention(c) (Int32) -> Int32
    private typealias ControlFunction = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias WaitFunction = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

    private struct Functions {
        let create: CreateFunction
        let control: ControlFunction
        let wait: WaitFunction
    }

    private static let functions: Functions? = {
        guard let library = dlopen(nil, RTLD_NOW),
            let create = dlsym(library, "epoll_create1"),
            let control = dlsym(library, "epoll_ctl"),
            let wait = dlsym(library, "epoll_wait")
        else { return nil }
        return Functions(
            create: unsafeBitCast(create, to: CreateFunction.self),
            control: unsafeBitCast(control, to: ControlFunction.self),
            wait: unsafeBitCast(wait, to: WaitFunction.self))
    }()

    // struct epoll_event is packed on x86_64 (12 bytes), naturally aligned elsewhere (16 bytes).
    #if arch(x86_64)
        private static let eventSize = 12
        private static let dataOffset = 4
    #else
        private static let eventSize = 16
        private static let dataOffset = 8
    #endif

    /// The epoll descriptor.
    let fd: Int32
    private let events: UnsafeMutableRawPointer
    private let capacity: Int32 = 256

    /// Creates an epoll set.
    /// - Throws: `SystemCallError` when epoll is unavailable or `epoll_create1` fails.
    init() throws {
        guard let functions = Epoll.functions else { throw SystemCallError(call: "dlsym(epoll)", errno: ENOSYS) }
        fd = try SystemCall.retrying("epoll_create1") { functions.create(0x80000) }  // EPOLL_CLOEXEC
        events = UnsafeMutableRawPointer.allocate(byteCount: Int(capacity) * Epoll.eventSize, alignment: 8)
    }

    deinit {
        events.deallocate()
        SystemCall.close(fd)
    }

    /// Adds `socket` with the interest `mask` (0 watches nothing but stays registered).
    func add(_ socket: Int32, mask: UInt32) throws {
        try control(1, socket, mask)
    }

    /// Changes the interest of a registered `socket`.
    func modify(_ socket: Int32, mask: UInt32) throws {
        try control(3, socket, mask)
    }

    /// Removes `socket` (before it is closed).
    func remove(_ socket: Int32) {
        try? control(2, socket, 0)
    }

    private func control(_ operation: Int32, _ socket: Int32, _ mask: UInt32) throws {
        var event = (UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &event) { raw in
            raw.storeBytes(of: mask, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: Int64(socket), toByteOffset: Epoll.dataOffset, as: Int64.self)
            _ = try SystemCall.retrying("epoll_ctl") {
                Epoll.functions!.control(fd, operation, socket, raw.baseAddress)
            }
        }
    }

    /// Blocks up to `milliseconds` for ready sockets. Returns how many are in the event buffer.
    func wait(milliseconds: Int32) -> Int {
        let count = Epoll.functions!.wait(fd, events, capacity, milliseconds)
        return count > 0 ? Int(count) : 0  // EINTR and friends: nothing ready this time
    }

    /// Hands out the first `count` events of the last `wait` as (socket, event bits).
    func forEachReady(_ count: Int, _ body: (Int32, UInt32) -> Void) {
        for index in 0..<count {
            let offset = index * Epoll.eventSize
            let mask = events.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let data = events.loadUnaligned(fromByteOffset: offset + Epoll.dataOffset, as: Int64.self)
            body(Int32(truncatingIfNeeded: data), mask)
        }
    }
}
