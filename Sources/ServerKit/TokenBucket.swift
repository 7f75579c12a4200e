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

    /// Takes `cost` tokens (at least 1) at `rate` when there are that many, and says what the headers report.
    mutating func take(_ rate: TokenBucketRate, at now: Int64, cost: Int = 1) -> RateLimitDecision {
        let interval = rate.interval
        let requests = Int64(rate.requests)
        let cost = Int64(max(1, cost))
        var missing = max(0, fullAt - now)
        // `cost` tokens are there while at most `requests - cost` are missing.
        let allowed = cost <= requests && missing <= (requests - cost) * interval
        if allowed {
            fullAt = max(fullAt, now) + cost * interval
            missing += cost * interval
        }
        let second = MonotonicClock.nanosecondsPerSecond
        let missingTokens = (missing + interval - 1) / interval
        let untilToken = missing - (requests - min(cost, requests)) * interval
        return RateLimitDecision(
            allowed: allowed, limit: rate.requests, remaining: Int(max(0, requests - missingTokens)),
            resetSeconds: Int((missing + second - 1) / second),
            retryAfterSeconds: allowed ? 0 : Int(max(1, (untilToken + second - 1) / second)))
    }
}
