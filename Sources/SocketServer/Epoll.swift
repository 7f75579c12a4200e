import CEpoll
import Glibc

/// A Linux epoll set owned by one event loop, plus the eventfd that wakes the loop from other threads.
///
/// Level-triggered: whatever is left unread or unwritten is reported again on the next wait.
///
/// `@unchecked Sendable`: `fd` and `wakeFD` never change and epoll and eventfd calls are thread-safe;
/// `ready` is used only by the loop's own thread, which alone calls `wait` and `forEachReady`.
final class Epoll: @unchecked Sendable {
    /// Interest in reading: readable, or the peer shut its side.
    static let readable = POSTERN_EPOLLIN | POSTERN_EPOLLRDHUP
    /// A listening socket watched by every loop: one waiting loop is woken per arrival, not all of
    /// them (`EPOLLEXCLUSIVE` admits no `EPOLLRDHUP`, and no `modify`: remove and add instead).
    static let acceptable = POSTERN_EPOLLIN | POSTERN_EPOLLEXCLUSIVE
    /// A listening socket on a kernel without `EPOLLEXCLUSIVE` (before 4.5).
    static let readableListener = POSTERN_EPOLLIN
    /// Interest in writing.
    static let writable = POSTERN_EPOLLOUT
    /// Reported even with an empty interest: the connection is broken both ways.
    static let hangUp = POSTERN_EPOLLERR | POSTERN_EPOLLHUP

    /// The epoll descriptor.
    let fd: Int32
    /// An eventfd in the set; `wake()` makes a blocked `wait` return.
    let wakeFD: Int32
    private let ready: UnsafeMutablePointer<postern_epoll_ready>
    private let capacity: Int32 = 256

    /// Creates the set and its wake-up eventfd.
    /// - Throws: `SystemCallError` when a descriptor cannot be had.
    init() throws {
        fd = try SystemCall.retrying("epoll_create1") { postern_epoll_create() }
        do {
            wakeFD = try SystemCall.retrying("eventfd") { postern_eventfd() }
        } catch {
            SystemCall.close(fd)
            throw error
        }
        ready = .allocate(capacity: Int(capacity))
        do {
            try add(wakeFD, interest: POSTERN_EPOLLIN)
        } catch {
            ready.deallocate()
            SystemCall.close(wakeFD)
            SystemCall.close(fd)
            throw error
        }
    }

    deinit {
        ready.deallocate()
        SystemCall.close(wakeFD)
        SystemCall.close(fd)
    }

    /// Adds `socket` with `interest` (0 watches nothing but hang-ups, and stays registered).
    func add(_ socket: Int32, interest: UInt32) throws {
        _ = try SystemCall.retrying("epoll_ctl(ADD)") { postern_epoll_ctl(fd, 0, socket, interest) }
    }

    /// Changes the interest of a registered `socket`.
    func modify(_ socket: Int32, interest: UInt32) throws {
        _ = try SystemCall.retrying("epoll_ctl(MOD)") { postern_epoll_ctl(fd, 1, socket, interest) }
    }

    /// Removes `socket`; call before closing it.
    func remove(_ socket: Int32) {
        _ = postern_epoll_ctl(fd, 2, socket, 0)
    }

    /// Makes a concurrent or the next `wait` return at once.
    func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    /// Consumes pending wake-ups (the eventfd was reported readable).
    func drainWake() {
        var count: UInt64 = 0
        _ = Glibc.read(wakeFD, &count, 8)
    }

    /// Blocks up to `milliseconds` (-1: until something is ready). Returns how many are ready; 0 on
    /// a timeout or `EINTR`.
    func wait(milliseconds: Int32) -> Int {
        let count = postern_epoll_wait(fd, ready, capacity, milliseconds)
        return count > 0 ? Int(count) : 0
    }

    /// Hands out the first `count` ready descriptors of the last `wait` with their event bits.
    func forEachReady(_ count: Int, _ body: (Int32, UInt32) -> Void) {
        for index in 0..<count { body(ready[index].fd, ready[index].events) }
    }
}
