/// What a connection is waiting for, which decides the timeout that applies.
enum ConnectionWait: Equatable {
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
struct ConnectionTimeouts {
    let headerRead: UInt64
    let idle: UInt64
    let write: UInt64

    private(set) var wait: ConnectionWait = .idle
    private(set) var since: UInt64

    init(headerRead: Duration, idle: Duration, write: Duration, now: UInt64) {
        self.headerRead = ConnectionTimeouts.nanoseconds(headerRead)
        self.idle = ConnectionTimeouts.nanoseconds(idle)
        self.write = ConnectionTimeouts.nanoseconds(write)
        since = now
    }

    /// Records what the connection now waits for; the clock restarts only when that changes,
    /// except for `.writing`, where every call is progress.
    mutating func enter(_ newWait: ConnectionWait, now: UInt64) {
        if newWait != wait || newWait == .writing {
            wait = newWait
            since = now
        }
    }

    /// The instant the current wait times out, or nil when it cannot.
    var deadline: UInt64? {
        switch wait {
        case .idle: return since &+ idle
        case .readingRequest: return since &+ headerRead
        case .handling: return nil
        case .writing: return since &+ write
        }
    }

    /// Whether the current wait has lasted too long at `now`.
    func isExpired(now: UInt64) -> Bool {
        guard let deadline else { return false }
        return now >= deadline
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
