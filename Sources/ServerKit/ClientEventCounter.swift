import ClientAddress

/// Counts each client's recent events (the agent's challenges, for its dynamic difficulty) in a table
/// of fixed memory, over a window of the last 60 s (between 50 and 60 s long: six 10-second buckets).
///
/// A count, not a token bucket: a policy such as "one more bit for each doubling beyond ten a minute"
/// needs how many events there were, which a bucket's level cannot say. The table, its sharding and its
/// eviction are the rate limits' own (see ``ClientTable``): the client with the fewest events in the
/// window is forgotten first, so a flood of one-off addresses cannot push out one that keeps asking.
public final class ClientEventCounter: Sendable {
    private let table: ClientTable<EventWindow>
    private let clock: MonotonicClock

    /// Creates an empty counter.
    /// - Parameters:
    ///   - capacity: clients remembered at most (rounded up to whole shards; 64 bytes each, allocated on
    ///     first use).
    ///   - clock: the monotonic clock the window slides by.
    public convenience init(capacity: Int, clock: MonotonicClock = .system) {
        self.init(table: ClientTable(capacity: capacity), clock: clock)
    }

    init(table: ClientTable<EventWindow>, clock: MonotonicClock) {
        self.table = table
        self.clock = clock
    }

    /// How many clients the counter can hold at most.
    public var capacity: Int { table.slotCount }

    /// Clients held now (walks the table; for tests and diagnostics).
    public var occupiedCount: Int { table.occupiedCount }

    /// Records one event of `client` now.
    /// - Returns: the events of that client in the window, this one included.
    public func record(_ client: ClientAddressKey) -> Int {
        table.update(table.fingerprint(client, 0), now: clock.now) { window, now in window.record(at: now) }
    }

    /// The events of `client` in the window ending now, without recording one.
    public func count(_ client: ClientAddressKey) -> Int {
        table.read(table.fingerprint(client, 0), now: clock.now) { window, now in window.total(at: now) }
    }
}
