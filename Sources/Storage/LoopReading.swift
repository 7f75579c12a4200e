/// An event loop as a database sees it: somewhere to watch a descriptor and be called back, on the loop's own thread,
/// when it is ready or when a deadline passes. The composition root adapts the server's loops to it; a database never
/// knows the loop's type. Every method but ``execute(_:)`` is called on the loop, and every callback runs there.
public protocol DescriptorReactor {
    /// The same for every reactor of one loop.
    var identity: ObjectIdentifier { get }
    /// Watches `fd` for reading, and for writing when `writable`, calling `ready(readable, writable)` on each readiness
    /// (a hang-up or error counts as readable, so that the reader finds the end); replaces an earlier watch of `fd`.
    /// - Throws: when the loop cannot watch it (`epoll_ctl` failed).
    func watch(_ fd: Int32, writable: Bool, _ ready: @escaping (_ readable: Bool, _ writable: Bool) -> Void) throws
    /// Changes what a watched `fd` is watched for.
    /// - Throws: when the loop cannot change it.
    func rewatch(_ fd: Int32, writable: Bool) throws
    /// Calls `expired` once at `deadline` (the loop's monotonic clock, nanoseconds) unless `fd` is unwatched or given
    /// another deadline before; nil: none.
    func setDeadline(_ fd: Int32, _ deadline: UInt64?, _ expired: @escaping () -> Void)
    /// Stops watching `fd` (before it closes).
    func unwatch(_ fd: Int32)
    /// The loop's monotonic clock, nanoseconds.
    func now() -> UInt64
    /// Runs `body` on the loop, from any thread.
    func execute(_ body: @escaping @Sendable () -> Void)
}

/// A database whose point reads can be sent from an event loop and answered on it, with no thread waiting for the
/// answer (PostgreSQL's non-blocking libpq, `PostgresDatabase`). SQLite reads on the loop's thread instead
/// (``ThreadOwnedReading``).
public protocol LoopReading: SQLDatabase {
    /// Whether reads from event loops are on at all (a route chooses its kind by it when it is made).
    var readsOnLoops: Bool { get }
    /// Whether the calling thread is a loop this database reads on (it has a reactor, and loop reads are on).
    var readsOnCallingLoop: Bool { get }
    /// Sends `sql` (one `SELECT`, `?` placeholders) from the calling loop and calls `completion` on that loop with
    /// what `decode` made of its rows, or with the error. Returns false, and never calls `completion`, when the
    /// calling thread is no such loop or its connections cannot take the read now (none open yet, all lost, too many
    /// waiting): the caller then reads as it would without the loop (``SQLDatabase/read(_:)``).
    /// - Warning: `completion` may report `.unavailable` for a connection lost during the read; the caller should read
    ///   again through the pool, which reconnects, rather than answer 503 for a failover the pool would ride out.
    func readOnLoop<T>(
        _ sql: String, _ bindings: [SQLValue], decode: @escaping ([SQLRow]) throws -> T,
        completion: @escaping (Result<T, any Error>) -> Void
    ) -> Bool
}
