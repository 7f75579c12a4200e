/// One client's token bucket, kept as the time it is full again (the "theoretical arrival time" of
/// GCRA): a single number, whatever the rate, that also says what forgetting the bucket would give back.
struct TokenBucket: ClientTableEntry {
    /// When the bucket is full again if nothing is taken meanwhile, on the table's monotonic clock.
    private var fullAt: Int64

    init(freshAt now: Int64) {
        fullAt = now
    }

    /// The refill time the client would gain if the table forgot it: 0 for a full bucket.
    func evictionWeight(at now: Int64) -> Int64 {
        max(0, fullAt - now)
    }

    /// Returns one token taken at `rate` (never past full).
    mutating func giveBack(_ rate: TokenBucketRate, at now: Int64) {
        fullAt = max(now, fullAt - rate.interval)
    }

    /// Takes one token at `rate` when there is one, and says what the headers report.
    mutating func take(_ rate: TokenBucketRate, at now: Int64) -> RateLimitDecision {
        let interval = rate.interval
        let requests = Int64(rate.requests)
        var missing = max(0, fullAt - now)
        // A token is there while at most `requests - 1` are missing.
        let allowed = missing <= (requests - 1) * interval
        if allowed {
            fullAt = max(fullAt, now) + interval
            missing += interval
        }
        let second = MonotonicClock.nanosecondsPerSecond
        let missingTokens = (missing + interval - 1) / interval
        let untilToken = missing - (requests - 1) * interval
        return RateLimitDecision(
            allowed: allowed, limit: rate.requests, remaining: Int(max(0, requests - missingTokens)),
            resetSeconds: Int((missing + second - 1) / second),
            retryAfterSeconds: allowed ? 0 : Int(max(1, (untilToken + second - 1) / second)))
    }
}
