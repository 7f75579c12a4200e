import Foundation

/// Counts recent events (challenges asked for) per client address in a table of fixed capacity.
///
/// The table is allocated once: 16 lock-protected shards, each a set-associative array of 4-way sets.
/// An address is known by a 64-bit hash (per-process random seed, so that nobody can aim collisions);
/// when its set is full, the least recently seen address of that set is forgotten. So a million
/// distinct addresses cost no more memory than ten, and an address that keeps asking stays remembered.
/// Counts cover the last 60 s in six 10-second buckets, so the window is between 50 and 60 s long.
public final class ClientRequestCounter: Sendable {
    /// Seconds per bucket.
    static let bucketSeconds: Int64 = 10
    /// Buckets per window (window = 60 s).
    static let bucketCount = 6
    /// Slots per set.
    static let ways = 4
    /// Independently locked shards.
    static let shardCount = 16

    private let shards: [Shard]
    private let setsPerShard: Int

    /// How many addresses the table can hold at most (the requested capacity, rounded up).
    public let capacity: Int

    /// Creates an empty table that remembers at most about `capacity` addresses (at least 64).
    public init(capacity: Int) {
        let perSet = Self.shardCount * Self.ways
        let sets = max(1, (max(capacity, 1) + perSet - 1) / perSet)
        setsPerShard = sets
        self.capacity = sets * perSet
        shards = (0..<Self.shardCount).map { _ in Shard(slots: sets * Self.ways) }
    }

    /// Records one event for `address` at time `now` (Unix seconds).
    /// - Returns: the number of events of that address in the window, this one included.
    public func record(_ address: String, now: Int64) -> Int {
        let (shard, set, key) = locate(address)
        return shards[shard].record(key: key, firstSlot: set * Self.ways, bucket: Self.bucket(now), add: true)
    }

    /// The number of events of `address` in the window ending at `now`, without recording one.
    public func count(_ address: String, now: Int64) -> Int {
        let (shard, set, key) = locate(address)
        return shards[shard].record(key: key, firstSlot: set * Self.ways, bucket: Self.bucket(now), add: false)
    }

    /// Number of addresses currently held (for tests and diagnostics; walks the whole table).
    public var occupiedSlots: Int {
        shards.reduce(0) { $0 + $1.occupied() }
    }

    private static func bucket(_ now: Int64) -> Int64 {
        now >= 0 ? now / bucketSeconds : (now - bucketSeconds + 1) / bucketSeconds
    }

    private func locate(_ address: String) -> (shard: Int, set: Int, key: UInt64) {
        var hasher = Hasher()
        hasher.combine(address)
        let hash = UInt64(bitPattern: Int64(hasher.finalize()))
        let shard = Int(hash >> 60) & (Self.shardCount - 1)
        let set = Int((hash >> 8) % UInt64(setsPerShard))
        return (shard, set, hash | 1)  // 0 marks an empty slot
    }
}

/// One lock and its slots.
///
/// `@unchecked Sendable`: the arrays are read and written only while `lock` is held.
private final class Shard: @unchecked Sendable {
    private let lock = NSLock()
    // Empty until the shard's first recorded event: an idle server does not hold (or touch) the
    // table's memory, 40 bytes per slot, 2.5 MiB at the default capacity.
    private var keys: [UInt64] = []
    private var lastBucket: [Int64] = []
    private var counts: [UInt32] = []
    private let slots: Int

    init(slots: Int) {
        self.slots = slots
    }

    /// Allocates the slots on first use (caller holds the lock).
    private func allocate() {
        keys = Array(repeating: 0, count: slots)
        lastBucket = Array(repeating: 0, count: slots)
        counts = Array(repeating: 0, count: slots * ClientRequestCounter.bucketCount)
    }

    private static func ring(_ bucket: Int64) -> Int {
        let width = Int64(ClientRequestCounter.bucketCount)
        return Int(((bucket % width) + width) % width)
    }

    /// Events of `slot` across its buckets (caller holds the lock).
    private func total(_ slot: Int) -> Int {
        let width = ClientRequestCounter.bucketCount
        var sum = 0
        for i in 0..<width { sum += Int(counts[slot * width + i]) }
        return sum
    }

    func occupied() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return keys.reduce(0) { $0 + ($1 == 0 ? 0 : 1) }
    }

    func record(key: UInt64, firstSlot: Int, bucket: Int64, add: Bool) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if keys.isEmpty {
            guard add else { return 0 }
            allocate()
        }
        let width = ClientRequestCounter.bucketCount
        var slot = -1
        var victim = firstSlot
        for candidate in firstSlot..<(firstSlot + ClientRequestCounter.ways) {
            if keys[candidate] == key {
                slot = candidate
                break
            }
            if keys[candidate] == 0 {
                if keys[victim] != 0 { victim = candidate }
            } else if keys[victim] != 0,
                lastBucket[candidate] < lastBucket[victim]
                    || (lastBucket[candidate] == lastBucket[victim] && total(candidate) < total(victim))
            {
                // Least recently seen first; within one bucket, the address that asked least, so that a
                // flood of one-off addresses cannot push out one that keeps asking.
                victim = candidate
            }
        }
        if slot < 0 {
            guard add else { return 0 }
            slot = victim
            keys[slot] = key
            lastBucket[slot] = bucket
            for i in 0..<width { counts[slot * width + i] = 0 }
        }
        let last = lastBucket[slot]
        if bucket > last {
            if bucket - last >= Int64(width) {
                for i in 0..<width { counts[slot * width + i] = 0 }
            } else {
                var b = last + 1
                while b <= bucket {
                    counts[slot * width + Self.ring(b)] = 0
                    b += 1
                }
            }
            if add { lastBucket[slot] = bucket }
        }
        let current = max(bucket, last)
        if add {
            let index = slot * width + Self.ring(current)
            if counts[index] < UInt32.max { counts[index] += 1 }
        }
        var total = 0
        for i in 0..<width { total += Int(counts[slot * width + i]) }
        return total
    }
}
