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

    /// Nanoseconds one token takes to refill (at least 1).
    var interval: Int64 {
        let period = min(Int64(perSeconds), Int64.max / MonotonicClock.nanosecondsPerSecond)
        return max(1, period * MonotonicClock.nanosecondsPerSecond / Int64(requests))
    }
}
