/// A token bucket's rate: `requests` tokens refill every `perSeconds` seconds, and the bucket holds at
/// most `requests` tokens (so the burst equals the rate over one period).
public struct TokenBucketRate: Sendable, Equatable {
    /// Tokens per period, and the bucket's capacity. At least 1.
    public var requests: Int
    /// Length of the period in seconds. At least 1.
    public var perSeconds: Int

    /// Creates a rate of `requests` per `perSeconds` seconds (each clamped to at least 1).
    public init(requests: Int, perSeconds: Int) {
        self.requests = max(1, requests)
        self.perSeconds = max(1, perSeconds)
    }

    /// This instance's share of a limit that `instances` instances enforce together, each with its own buckets
    /// (no shared counter, so nothing on the request path): the capacity divided among them (at least 1) and the
    /// refill rate divided, rounded down. However a client spreads its requests over the instances, it gets at
    /// most the documented rate, plus, when the capacity is below `instances` (each still holds one token), at most
    /// `instances - requests` extra requests at first; a client that reaches only one instance gets its share.
    public func share(among instances: Int) -> TokenBucketRate {
        guard instances > 1 else { return self }
        let capacity = max(1, requests / instances)
        // capacity / period <= requests / (perSeconds * instances), so the period rounds up.
        let period = (perSeconds * instances * capacity + requests - 1) / requests
        return TokenBucketRate(requests: capacity, perSeconds: period)
    }

    /// Nanoseconds one token takes to refill (at least 1).
    var interval: Int64 {
        let period = min(Int64(perSeconds), Int64.max / MonotonicClock.nanosecondsPerSecond)
        return max(1, period * MonotonicClock.nanosecondsPerSecond / Int64(requests))
    }
}
