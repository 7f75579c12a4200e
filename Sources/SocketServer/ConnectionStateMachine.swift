/// What the event loop tells a connection's protocol state machine.
///
/// `Completion` is the protocol's own answer to a job it asked for (an HTTP response, a stored
/// message), delivered on the connection's loop.
public enum ConnectionEvent<Completion> {
    /// The connection was accepted and registered.
    case opened
    /// Bytes arrived. Valid only for the call.
    case bytesRead(UnsafeRawBufferPointer)
    /// The peer closed its sending side (read returned 0).
    case readEOF
    /// The socket took `count` bytes of the unsent output.
    case wrote(Int)
    /// The socket took nothing more: output waits for `writable`.
    case writeBlocked
    /// A blocked socket can take bytes again.
    case writable
    /// The deadline the machine armed has passed.
    case timerFired
    /// A job the machine asked for is done.
    case completed(Completion)
    /// The server stops: finish what is in flight, take nothing new.
    case shutdown
    /// The socket failed or hung up both ways: nothing more can be read or written.
    case reset
}

/// What a connection's protocol state machine asks the event loop to do, in order.
public enum ConnectionAction<Job> {
    /// Write the unsent output (`withUnsentOutput`) until it is gone or the socket blocks, reporting
    /// `wrote` and `writeBlocked`. The loop does this once at the end of a turn, so that answers
    /// ready together leave in one `send`.
    case write
    /// Watch the socket for reading and/or writing.
    case setInterest(read: Bool, write: Bool)
    /// Report `timerFired` once the monotonic clock reaches `deadline` (nanoseconds); replaces any
    /// earlier deadline.
    case armTimer(deadline: UInt64)
    /// Forget the armed deadline.
    case cancelTimer
    /// Hand `job` to the application; its completion comes back as `completed`.
    case perform(Job)
    /// Shut our sending side (lingering close: keep reading until the peer closes or the timer fires).
    case shutdownWrite
    /// Close the socket now. The machine receives no event after this.
    case close
}

/// One protocol's rules for a connection, as a pure value: events in, actions out. No sockets, no
/// threads, no clock of its own, so tests drive it byte by byte with a mock clock.
public protocol ConnectionStateMachine {
    /// Work the machine hands to the application (an HTTP request to answer).
    associatedtype Job
    /// The application's answer to a job, sent back as `ConnectionEvent.completed`.
    associatedtype Completion

    /// Takes one event at monotonic time `now` (nanoseconds) and appends the actions it implies.
    mutating func handle(_ event: ConnectionEvent<Completion>, now: UInt64, into actions: inout [ConnectionAction<Job>])

    /// Whether output waits to be written.
    var hasUnsentOutput: Bool { get }

    /// Calls `body` with the output not yet written (never empty when `hasUnsentOutput`).
    func withUnsentOutput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}
