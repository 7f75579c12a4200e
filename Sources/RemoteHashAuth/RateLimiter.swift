import ClientAddress
import Foundation

/// A token bucket per client, `perMinute` requests a minute, refilled continuously.
///
/// Clients are keyed by `ClientAddressKey`: an IPv4 address alone, an IPv6 address by its
/// /64 (one subscriber usually holds a whole /64 and could otherwise ask from 2^64 fresh addresses).
///
/// Memory is bounded by `maxTrackedAddresses` without ever forgetting everyone at once (which
/// would let one client with many addresses reset every other client's limit). When a new client
/// arrives at capacity, buckets that have fully refilled are dropped first: they are exactly
/// equivalent to the fresh bucket a returning client would get. If that frees nothing, a bounded
/// batch of the buckets closest to full is evicted (least recently used first among equals): those
/// are the ones whose loss grants the fewest extra requests, so a flood of fresh addresses evicts
/// its own barely used buckets before an exhausted client's bucket.
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
    /// How many buckets one eviction pass removes when no bucket has refilled: enough that the
    /// O(n log n) pass runs rarely, never more than a small fraction of the table.
    private let evictionBatch: Int

    init(perMinute: Int, maxTrackedAddresses: Int = 100_000) {
        capacity = Double(max(1, perMinute))
        refillPerSecond = Double(max(1, perMinute)) / 60
        self.maxTrackedAddresses = max(1, maxTrackedAddresses)
        evictionBatch = max(1, maxTrackedAddresses / 64)
    }

    /// The number of buckets held (for tests).
    var trackedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return buckets.count
    }

    /// Takes one token for the client at `address` (the peer IP as text) at time `now` (seconds).
    /// Returns nil when allowed, else the seconds until a token is available (for `Retry-After`).
    func take(_ address: String, now: Double) -> Int? {
        let key = ClientAddressKey(peer: address).description
        lock.lock()
        defer { lock.unlock() }
        let existing = buckets[key]
        var bucket = existing ?? Bucket(tokens: capacity, updated: now)
        bucket.tokens = level(bucket, now: now)
        bucket.updated = max(now, bucket.updated)
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            return max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up)))
        }
        bucket.tokens -= 1
        if existing == nil && buckets.count >= maxTrackedAddresses { makeRoom(now: now) }
        buckets[key] = bucket
        return nil
    }

    /// The bucket's tokens at `now`, refilled since its last update and capped at the capacity.
    private func level(_ bucket: Bucket, now: Double) -> Double {
        min(capacity, bucket.tokens + max(0, now - bucket.updated) * refillPerSecond)
    }

    /// Frees at least one slot: drops every fully refilled bucket; if none has refilled, evicts the
    /// `evictionBatch` buckets with the most tokens (oldest first among equals). Never clears the table.
    private func makeRoom(now: Double) {
        buckets = buckets.filter { level($0.value, now: now) < capacity }
        guard buckets.count >= maxTrackedAddresses else { return }
        let victims = buckets.map { (key: $0.key, level: level($0.value, now: now), updated: $0.value.updated) }
            .sorted { $0.level != $1.level ? $0.level > $1.level : $0.updated < $1.updated }
            .prefix(evictionBatch)
        for victim in victims { buckets[victim.key] = nil }
    }
}
