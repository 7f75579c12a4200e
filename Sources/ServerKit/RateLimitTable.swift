import ClientAddress

/// Token buckets per client and class, with bounded memory: every surface's rate limits.
///
/// Each `RateClass` (public requests, account creation...) has its own rate and its own bucket per
/// ``ClientAddressKey`` (so IPv6 clients count per /64). Time comes from an injected ``MonotonicClock``.
/// Memory is fixed at creation (see ``ClientTable``): a flood of fresh addresses evicts buckets that are
/// full again, then barely used ones, before the bucket of a client being held back.
public final class RateLimitTable<RateClass: Hashable & Sendable>: Sendable {
    private let table: ClientTable<TokenBucket>
    private let rates: @Sendable (RateClass) -> TokenBucketRate
    private let clock: MonotonicClock

    /// Creates an empty table.
    /// - Parameters:
    ///   - capacity: bucket slots shared by every class (24 bytes each, allocated on first use).
    ///   - clock: the monotonic clock the buckets refill by.
    ///   - rates: the rate of each class; called on every take, so it should be a lookup.
    public convenience init(
        capacity: Int, clock: MonotonicClock = .system, rates: @escaping @Sendable (RateClass) -> TokenBucketRate
    ) {
        self.init(table: ClientTable(capacity: capacity), clock: clock, rates: rates)
    }

    init(
        table: ClientTable<TokenBucket>, clock: MonotonicClock, rates: @escaping @Sendable (RateClass) -> TokenBucketRate
    ) {
        self.table = table
        self.clock = clock
        self.rates = rates
    }

    /// Most buckets the table ever holds (its memory bound).
    public var slotCount: Int { table.slotCount }

    /// Buckets held now (walks the table; for tests and diagnostics).
    public var occupiedCount: Int { table.occupiedCount }

    /// The rate of `rateClass`.
    public func rate(of rateClass: RateClass) -> TokenBucketRate { rates(rateClass) }

    /// Returns a token taken from the bucket of `client` in `rateClass`: for a request refused before it did
    /// anything the limit protects (a malformed one), so that a typo does not cost the client its allowance.
    public func giveBack(_ rateClass: RateClass, for client: ClientAddressKey) {
        let rate = rates(rateClass)
        table.update(table.fingerprint(client, rateClass), now: clock.now) { bucket, now in
            bucket.giveBack(rate, at: now)
        }
    }

    /// Takes `cost` tokens (one by default; bytes or kibibytes for a class that meters volume) from the bucket of
    /// `client` in `rateClass`, now; all of them or none.
    public func take(_ rateClass: RateClass, for client: ClientAddressKey, cost: Int = 1) -> RateLimitDecision {
        let rate = rates(rateClass)
        return table.update(table.fingerprint(client, rateClass), now: clock.now) { bucket, now in
            bucket.take(rate, at: now, cost: cost)
        }
    }
}
