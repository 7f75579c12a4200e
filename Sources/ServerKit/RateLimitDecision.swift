import HTTP1

/// The verdict of one token-bucket check, with what the `Retry-After` and `RateLimit-*` headers report.
public struct RateLimitDecision: Sendable, Equatable {
    /// Whether the request may proceed (a token was taken).
    public let allowed: Bool
    /// The bucket's capacity (`RateLimit-Limit`).
    public let limit: Int
    /// Whole tokens left after this request (`RateLimit-Remaining`).
    public let remaining: Int
    /// Seconds until the bucket is full again (`RateLimit-Reset`).
    public let resetSeconds: Int
    /// Seconds until one token is available (`Retry-After`); 0 when allowed.
    public let retryAfterSeconds: Int

    /// Creates a decision (the tables make them; tests compare with them).
    public init(allowed: Bool, limit: Int, remaining: Int, resetSeconds: Int, retryAfterSeconds: Int) {
        self.allowed = allowed
        self.limit = limit
        self.remaining = remaining
        self.resetSeconds = resetSeconds
        self.retryAfterSeconds = retryAfterSeconds
    }
}

extension HTTPHeaders {
    /// Sets `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` from `decision`.
    public mutating func setRateLimit(_ decision: RateLimitDecision) {
        replaceOrAdd("RateLimit-Limit", String(decision.limit))
        replaceOrAdd("RateLimit-Remaining", String(decision.remaining))
        replaceOrAdd("RateLimit-Reset", String(decision.resetSeconds))
    }

    /// Sets `Retry-After` to the whole seconds until a refused request could pass.
    public mutating func setRetryAfter(_ decision: RateLimitDecision) {
        setRetryAfter(seconds: decision.retryAfterSeconds)
    }

    /// Sets `Retry-After` to `seconds`: a 429's wait, or how soon a 503 (a full pool, a database outage) may pass.
    public mutating func setRetryAfter(seconds: Int) {
        replaceOrAdd("Retry-After", String(seconds))
    }
}
