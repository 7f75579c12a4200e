import Synchronization

/// Whether the server this instance's connections were opened to may have stopped being the primary: the one signal
/// every connection that reads follows, whichever thread or loop holds it.
///
/// The rule, in the order it runs:
/// 1. The pool raises it (``raise()``) when a write outlives the commit timeout (``PostgresPool``): the commit is
///    waiting for a synchronous standby that is gone, which is what a failover that leaves the old primary up and
///    writable looks like from here (Patroni killed under its PostgreSQL, a switchover whose old leader lingers). It is
///    the pool's doubt, never a copy of it: nothing else decides that the primary may have changed.
/// 2. Each raise is a new ``generation``. A connection remembers the generation it began to open under; one opened
///    under an older generation may be on the old server, and reading there would answer older data than the
///    writes this instance's other connections, made anew, have acknowledged on the new one.
/// 3. The followers: the pool makes its idle connections anew at once (``PostgresPool``); every event loop drops its
///    read connections opened under an older generation, at once when the raise reaches the loop and in any case
///    before its next read, a read in flight on one answered `.unavailable` (its caller reads again through the pool),
///    and opens new ones to what the URL resolves to now (``PostgresLoopReaders``, ``PostgresLoopReadMachine`` rule 8).
/// 4. On a server that is still the primary, this costs each follower its connections once, after a failure.
final class PostgresPrimaryDoubt: Sendable {
    private let raised = Atomic<UInt64>(0)
    private let followers = Mutex<[@Sendable (UInt64) -> Void]>([])

    init() {}

    /// How many times the doubt was raised: a connection opened under a smaller number may be on an old primary.
    var generation: UInt64 { raised.load(ordering: .acquiring) }

    /// Raises the doubt: a new generation, told to every follower (on the calling thread; a follower that has work to
    /// do hands it to its own queue or loop).
    func raise() {
        let generation = raised.add(1, ordering: .acquiringAndReleasing).newValue
        for follower in followers.withLock({ $0 }) { follower(generation) }
    }

    /// Calls `follower` with the new generation at each later ``raise()``.
    func follow(_ follower: @escaping @Sendable (UInt64) -> Void) {
        followers.withLock { $0.append(follower) }
    }
}
