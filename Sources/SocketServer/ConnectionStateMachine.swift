/// What the event loop tells a connection's protocol state machine.
public enum ConnectionEvent {
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
    /// A job the machine asked for is done: the protocol's own answer (an HTTP response, a stored
    /// message), as the service's `perform` gave it.
    case completed(any AnyObject & Sendable)
    /// The server stops: finish what is in flight, take nothing new.
    case shutdown
    /// The socket failed or hung up both ways: nothing more can be read or written.
    case reset
}

/// What a connection's protocol state machine asks the event loop to do, in order.
public enum ConnectionAction {
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
    /// Hand `job` (the protocol's own request type) to the service; its completion comes back as
    /// `completed`.
    case perform(any AnyObject & Sendable)
    /// Shut our sending side (lingering close: keep reading until the peer closes or the timer fires).
    case shutdownWrite
    /// Close the socket now. The machine receives no event after this.
    case close
}

/// One protocol's rules for a connection, as a pure value: events in, actions out. No sockets, no
/// threads, no clock of its own, so tests drive it byte by byte with a mock clock.
///
/// Jobs and their completions travel as class instances (`any AnyObject & Sendable`: one reference,
/// a cheap class cast back) rather than associated types on purpose: the
/// loop's code then stays concrete and each protocol's machine is compiled specialized in its own
/// module. Unspecialized generic code across modules (the first version of this) cost twice the CPU
/// per HTTP request, most of it resolving generic metadata.
public protocol ConnectionStateMachine {
    /// Takes one event at monotonic time `now` (nanoseconds) and appends the actions it implies.
    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction])

    /// Whether output waits to be written.
    var hasUnsentOutput: Bool { get }

    /// Calls `body` with the output not yet written (never empty when `hasUnsentOutput`) and returns what it
    /// returns: the bytes a `send` took, nil when the socket would block. Not generic: called through the
    /// protocol for every response, a generic requirement would run unspecialized.
    func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int?
}

/// A machine whose socket side is a ``ConnectionLifecycle`` (SMTP's, WebSocket's, the mail doors'): its output is the
/// lifecycle's, so what the connection asks of it (``hasUnsentOutput``, ``withUnsentOutput(_:)``) is written once, and
/// so is the rule of a timer that fires while the connection lingers (``timerFiredWhileLingering(now:into:)``).
package protocol LifecycleConnectionMachine: ConnectionStateMachine {
    /// The connection's stage, output and lingering close.
    var lifecycle: ConnectionLifecycle { get set }

    /// Closes the connection now and ends what the machine runs for it (its session, its handler).
    mutating func close(into actions: inout [ConnectionAction])
}

extension LifecycleConnectionMachine {
    /// Whether output waits to be written.
    @inlinable public var hasUnsentOutput: Bool { !lifecycle.output.isEmpty }

    /// Calls `body` with the output not yet written and returns what it returns.
    @inlinable public func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try lifecycle.output.withUnsentBytes(body)
    }

    /// The timer fired: while the connection lingers, closes it once the lingering time is up (``close(into:)``) and
    /// returns true, the protocol's own timeouts not applying then; false when it does not linger.
    @inlinable package mutating func timerFiredWhileLingering(now: UInt64, into actions: inout [ConnectionAction])
        -> Bool
    {
        guard lifecycle.lingerTimerFired(now: now, into: &actions) else { return false }
        if lifecycle.isClosed { close(into: &actions) }
        return true
    }
}
