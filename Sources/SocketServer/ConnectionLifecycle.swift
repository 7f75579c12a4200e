/// What every connection goes through, whatever protocol it speaks: output queued and written with back-pressure, a
/// socket that blocks, the peer's end of input, a last output followed by a lingering close, and telling the loop
/// only what changed. A protocol's state machine keeps one and adds its own rules around it (HTTP's pipelining,
/// SMTP's commands).
///
/// Lingering close: after the last output (a `Connection: close` response, an SMTP `221`, a refusal) our sending
/// side is shut and the peer's bytes are drained for `lingerNanoseconds`, so that unread input does not make the
/// kernel reset the connection before the peer has read the answer.
public struct ConnectionLifecycle: Sendable {
    /// Where the connection is in its life.
    public enum Stage: Equatable, Sendable {
        /// The protocol's rules apply.
        case open
        /// The last output is queued; once written, linger.
        case closingAfterOutput
        /// A best-effort last output (to a client that stopped reading): close after the first write attempt.
        case abandoning
        /// Our side is shut; input is drained until the peer closes or the deadline.
        case lingering(until: UInt64)
        /// Closed; no more events.
        case closed
    }

    /// Unsent output above which a machine stops taking input until the socket takes it.
    public static var outputHighWater: Int { 64 * 1024 }
    /// How long a closing connection drains the peer's bytes before the socket is closed.
    public static var lingerNanoseconds: UInt64 { 2_000_000_000 }

    /// Bytes queued for the socket.
    public var output = OutputBuffer()
    /// Where the connection is in its life.
    public private(set) var stage = Stage.open
    /// The peer shut its sending side.
    public private(set) var peerClosed = false
    /// The socket took no more output; waiting for `writable`.
    public private(set) var writeBlocked = false
    /// What the loop was last told, so that only changes become actions.
    private var announcedRead = true
    private var announcedWrite = false
    private var announcedDeadline: UInt64?

    /// An open connection with nothing queued, watched for reading (as the loop registers it).
    public init() {}

    /// Whether the connection is closed.
    public var isClosed: Bool { stage == .closed }

    /// Whether input arriving now is only drained (lingering), never parsed.
    public var isLingering: Bool {
        if case .lingering = stage { return true }
        return false
    }

    /// Whether the machine may take more input now (back-pressure): the socket takes output and what is unsent is
    /// below `outputHighWater`.
    public var takesInput: Bool { !writeBlocked && output.unsentCount < Self.outputHighWater }

    // MARK: - Events

    /// The peer shut its sending side; a lingering connection then closes at once. Returns whether it closed.
    public mutating func peerDidClose(into actions: inout [ConnectionAction]) -> Bool {
        peerClosed = true
        guard isLingering else { return false }
        close(into: &actions)
        return true
    }

    /// The socket took `count` bytes; returns whether the output is now empty.
    public mutating func didWrite(_ count: Int) -> Bool {
        output.consume(count)
        writeBlocked = false
        return output.isEmpty
    }

    /// The socket took no more; returns whether it was not blocked already (a write timeout starts now).
    public mutating func didBlock() -> Bool {
        guard !writeBlocked else { return false }
        writeBlocked = true
        return true
    }

    /// A blocked socket takes bytes again.
    public mutating func becameWritable() {
        writeBlocked = false
    }

    /// The timer fired while lingering: closes once the deadline has passed. Returns whether the connection was
    /// lingering (the protocol's own timeouts do not apply then).
    public mutating func lingerTimerFired(now: UInt64, into actions: inout [ConnectionAction]) -> Bool {
        guard case .lingering(let until) = stage else { return false }
        if now >= until { close(into: &actions) }
        return true
    }

    // MARK: - Closing

    /// The last output is queued: once it is written, `outputDrained` lingers.
    public mutating func closeAfterOutput() {
        if stage == .open { stage = .closingAfterOutput }
    }

    /// Queues `bytes` as a best-effort last output: the connection closes after the first write attempt.
    public mutating func abandon(after bytes: [UInt8]) {
        output.append(bytes)
        stage = .abandoning
    }

    /// The last output is written: close when the peer has closed already, else shut our side and drain the peer's
    /// bytes until `lingerNanoseconds` from `now`.
    public mutating func linger(now: UInt64, into actions: inout [ConnectionAction]) {
        if peerClosed { return close(into: &actions) }
        stage = .lingering(until: now &+ Self.lingerNanoseconds)
        actions.append(.shutdownWrite)
    }

    /// Closes now; nothing is written after.
    public mutating func close(into actions: inout [ConnectionAction]) {
        stage = .closed
        output.clear()
        actions.append(.close)
    }

    // MARK: - Telling the loop

    /// Ends a turn: asks for a write of what became ready (not after `.wrote`: the loop goes on writing by itself),
    /// then tells the loop what changed of the interest and the deadline. While lingering the connection reads
    /// until the linger deadline, and while abandoning it reads nothing and has no deadline, whatever the protocol
    /// says.
    /// - Parameters:
    ///   - read: whether the protocol wants to read now.
    ///   - deadline: when the protocol's current timeout fires, nil for none.
    public mutating func finishTurn(
        after event: ConnectionEvent, read: Bool, deadline: UInt64?, into actions: inout [ConnectionAction]
    ) {
        guard stage != .closed else { return }
        if case .wrote = event {} else if !output.isEmpty && !writeBlocked { actions.append(.write) }
        var read = read
        var deadline = deadline
        switch stage {
        case .lingering(let until):
            read = true
            deadline = until
        case .abandoning:
            read = false
            deadline = nil
        case .open, .closingAfterOutput, .closed:
            break
        }
        if read != announcedRead || writeBlocked != announcedWrite {
            announcedRead = read
            announcedWrite = writeBlocked
            actions.append(.setInterest(read: read, write: writeBlocked))
        }
        if deadline != announcedDeadline {
            announcedDeadline = deadline
            actions.append(deadline.map { .armTimer(deadline: $0) } ?? .cancelTimer)
        }
    }
}
