import Foundation

/// A token bucket per client address: `perMinute` requests a minute, refilled continuously.
///
/// Memory is bounded: past `maxTrackedAddresses` buckets, full (idle) buckets are dropped, and if
/// that is not enough the table is cleared (failing open for a moment rather than growing).
final class RateLimiter: @unchecked Sendable {
    // @unchecked: `buckets` is only touched under `lock`.
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    private let capacity: Double
    private let refillPerSecond: Double
    private let maxTrackedAddresses: Int

    init(perMinute: Int, maxTrackedAddresses: Int = 100_000) {
        capacity = Double(max(1, perMinute))
        refillPerSecond = Double(max(1, perMinute)) / 60
        self.maxTrackedAddresses = maxTrackedAddresses
    }

    /// Takes one token for `address` at time `now` (seconds). Returns nil when allowed, else the
    /// seconds until a token is available (for `Retry-After`).
    func take(_ address: String, now: Double) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        var bucket = buckets[address] ?? Bucket(tokens: capacity, updated: now)
        bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updated) * refillPerSecond)
        bucket.updated = now
        guard bucket.tokens >= 1 else {
            buckets[address] = bucket
            return max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up)))
        }
        bucket.tokens -= 1
        if buckets[address] == nil && buckets.count >= maxTrackedAddresses { prune(now: now) }
        buckets[address] = bucket
        return nil
    }

    private func prune(now: Double) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * refillPerSecond < capacity }
        if buckets.count >= maxTrackedAddresses { buckets.removeAll() }
    }
}
