/// Anything an event loop watches: a connection or a listening socket. Used only on its loop.
protocol LoopRegistrant: AnyObject {
    /// The descriptor in the loop's epoll set (unique while registered).
    var fd: Int32 { get }
    /// The server it belongs to, so that one server's shutdown leaves the others on the loop alone.
    var owner: ObjectIdentifier { get }
    /// The deadline currently asked for, nil for none.
    var deadline: UInt64? { get }
    /// The deadline of this registrant's live entry in the loop's timer heap, nil for none.
    var timerEntry: UInt64? { get set }
    /// The socket is ready (`events` are epoll bits).
    func ready(_ events: UInt32)
    /// `deadline` has passed.
    func timerFired()
    /// The server stops: finish what is in flight, then close.
    func beginShutdown()
    /// Close at once.
    func forceClose()
}
