/// What a connection is waiting for, which decides the timeout that applies.
public enum ConnectionWait: Equatable, Sendable {
    /// No request in progress, nothing to write: the idle keep-alive timeout runs.
    case idle
    /// Part of a request has arrived: the header (request read) timeout runs.
    case readingRequest
    /// A handler is working: no timeout (the server's shutdown grace period bounds it).
    case handling
    /// A response is stuck in the socket buffer: the write timeout runs since the last progress.
    case writing
}

/// The timeout rules of one connection, as a pure value driven by an injected clock.
///
/// The connection reports each change of what it waits for with `enter(_:now:)`; the event
/// queue's sweep asks `isExpired(now:)`. Times are monotonic nanoseconds.
public struct ConnectionTimeouts: Sendable {
    /// The longest wait for the rest of a request (or command) once its first byte arrived.
    public let headerRead: UInt64
    /// The longest wait for a new request on an idle connection.
    public let idle: UInt64
    /// The longest wait for write progress on a blocked socket.
    public let write: UInt64

    /// What the connection waits for now.
    public private(set) var wait: ConnectionWait = .idle
    /// When the current wait began.
    public private(set) var since: UInt64

    /// Starts idle at `now`.
    public init(headerRead: Duration, idle: Duration, write: Duration, now: UInt64) {
        self.headerRead = ConnectionTimeouts.nanoseconds(headerRead)
        self.idle = ConnectionTimeouts.nanoseconds(idle)
        self.write = ConnectionTimeouts.nanoseconds(write)
        since = now
    }

    /// Records what the connection now waits for; the clock restarts only when that changes,
    /// except for `.writing`, where every call is progress. It never moves back (see `progressed(now:)`).
    public mutating func enter(_ newWait: ConnectionWait, now: UInt64) {
        if newWait != wait || newWait == .writing {
            wait = newWait
            since = max(since, now)
        }
    }

    /// The server made progress at `now` (an answer encoded, bytes written): the current wait restarts from then. So
    /// the idle and read clocks count from the last answer, not from before it was built (a slow answer is still an
    /// answer), and the write clock from the last bytes the socket took. Never moves back: the events of one turn
    /// share the turn's `now`, which is older than an answer the turn itself spent long encoding.
    public mutating func progressed(now: UInt64) {
        since = max(since, now)
    }

    /// The instant the current wait times out, or nil when it cannot.
    public var deadline: UInt64? {
        switch wait {
        case .idle: return since &+ idle
        case .readingRequest: return since &+ headerRead
        case .handling: return nil
        case .writing: return since &+ write
        }
    }

    /// Whether the current wait has lasted too long at `now`.
    public func isExpired(now: UInt64) -> Bool {
        guard let deadline else { return false }
        return now >= deadline
    }

    /// `duration` in whole nanoseconds; 0 for a negative one.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
