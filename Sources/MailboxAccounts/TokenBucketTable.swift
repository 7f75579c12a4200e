import Synchronization

/// The verdict of one token-bucket check, with what the `RateLimit-*` headers report.
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
}

/// Token buckets in a fixed number of slots, split into shards each behind its own lock.
///
/// Memory is fixed at creation whatever the number of distinct keys: a key probes at most 8 slots of
/// its shard and, when none is free or its own, takes the slot least recently touched. An evicted
/// client starts again with a full bucket, which only ever errs towards letting a request through.
final class TokenBucketTable: Sendable {
    /// One shard's slots; empty until its first `take`, so that an idle server does not hold (or
    /// touch) the table's memory, 24 bytes per slot, 1.5 MiB at the default capacity.
    private struct Shard {
        var fingerprints: [UInt64] = []
        var tokens: [Double] = []
        var touchedAt: [Int64] = []

        mutating func allocate(_ capacity: Int) {
            fingerprints = Array(repeating: 0, count: capacity)
            tokens = Array(repeating: 0, count: capacity)
            touchedAt = Array(repeating: 0, count: capacity)
        }
    }

    /// Holds one shard's lock; a class because `Mutex` cannot live in an array.
    private final class ShardBox: Sendable {
        let state: Mutex<Shard>
        init() { state = Mutex(Shard()) }
    }

    private static let probeLength = 8
    private let shards: [ShardBox]
    private let shardCapacity: Int

    /// Creates a table of about `capacity` slots (at least 8 per shard) split over `shardCount` shards.
    init(capacity: Int, shardCount: Int = 16) {
        let shardCount = max(1, shardCount)
        shardCapacity = max(Self.probeLength, capacity / shardCount)
        shards = (0..<shardCount).map { _ in ShardBox() }
    }

    /// Total slots: the most buckets ever held at once.
    var slotCount: Int { shards.count * shardCapacity }

    /// Takes one token from the bucket of `fingerprint` (non-zero) refilling at `rate`, at `nowMillis`.
    func take(fingerprint: UInt64, rate: TokenBucketRate, nowMillis: Int64) -> RateLimitDecision {
        let fingerprint = fingerprint == 0 ? 1 : fingerprint
        let capacity = Double(rate.requests)
        let perMilli = capacity / (Double(rate.perSeconds) * 1000)
        let box = shards[Int((fingerprint >> 40) % UInt64(shards.count))]
        let start = Int(fingerprint % UInt64(shardCapacity))
        let shardCapacity = shardCapacity
        let level: Double = box.state.withLock { shard in
            if shard.fingerprints.isEmpty { shard.allocate(shardCapacity) }
            var slot = -1
            var victim = start
            for step in 0..<Self.probeLength {
                let index = (start + step) % shardCapacity
                if shard.fingerprints[index] == fingerprint || shard.fingerprints[index] == 0 {
                    slot = index
                    break
                }
                if shard.touchedAt[index] < shard.touchedAt[victim] { victim = index }
            }
            if slot < 0 || shard.fingerprints[slot] == 0 {
                slot = slot < 0 ? victim : slot
                shard.fingerprints[slot] = fingerprint
                shard.tokens[slot] = capacity
                shard.touchedAt[slot] = nowMillis
            }
            let elapsed = Double(max(0, nowMillis - shard.touchedAt[slot]))
            var level = min(capacity, shard.tokens[slot] + elapsed * perMilli)
            let allowed = level >= 1
            if allowed { level -= 1 }
            shard.tokens[slot] = level
            shard.touchedAt[slot] = max(nowMillis, shard.touchedAt[slot])
            return allowed ? level : -1 - level
        }
        let allowed = level >= 0
        let current = allowed ? level : -1 - level
        let perSecond = perMilli * 1000
        let reset = Int(((capacity - current) / perSecond).rounded(.up))
        let retry = allowed ? 0 : max(1, Int(((1 - current) / perSecond).rounded(.up)))
        return RateLimitDecision(
            allowed: allowed, limit: rate.requests, remaining: Int(current.rounded(.down)),
            resetSeconds: reset, retryAfterSeconds: retry)
    }
}
