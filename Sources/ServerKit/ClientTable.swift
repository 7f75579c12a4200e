import ClientAddress
import Synchronization

/// What a ``ClientTable`` keeps per client (a token bucket, the counts of a window), and what losing it
/// would cost the client.
protocol ClientTableEntry: Sendable {
    /// The state of a client the table does not hold (never seen, or forgotten) at `now`.
    init(freshAt now: Int64)

    /// What forgetting this entry at `now` would give back to its client, in the entry's own unit
    /// (nanoseconds of refill, events in the window); 0 when the entry is as good as a fresh one.
    func evictionWeight(at now: Int64) -> Int64
}

/// Per-client state in a fixed number of slots, split into shards each behind its own `Mutex`: the
/// memory of every rate limit and counting window, bounded whatever the number of distinct clients.
///
/// A client is known by a 64-bit fingerprint of its ``ClientAddressKey`` and class, hashed with the
/// process's random seed so that nobody can aim many keys at one slot. It lives in one of `probeLength`
/// consecutive slots of its shard. When none of them is its own or free, the one whose loss gives its
/// client the least is taken (the lowest ``ClientTableEntry/evictionWeight(at:)``, the least recently
/// touched among equals): entries as good as fresh go first, then a flood's barely used ones, and the
/// entry of a client being held back goes last. A forgotten client starts again from a fresh entry,
/// which only ever errs towards letting a request through.
///
/// Slots are allocated on a shard's first use, so that an idle server does not hold the table's memory.
final class ClientTable<Entry: ClientTableEntry>: Sendable {
    private struct Shard {
        var fingerprints: [UInt64] = []
        var touched: [Int64] = []
        var entries: [Entry] = []
    }

    /// Holds one shard's lock; a class because `Mutex` cannot live in an array.
    private final class ShardBox: Sendable {
        let state = Mutex(Shard())
    }

    private let shards: [ShardBox]
    private let shardCapacity: Int
    private let probeLength: Int

    /// Creates a table of `capacity` slots, rounded up to whole shards of at least `probeLength` slots.
    /// - Parameters:
    ///   - capacity: the most clients (and classes) held at once.
    ///   - shardCount: independently locked shards. Default 16.
    ///   - probeLength: the slots a client may live in; 8 by default, so that eviction has a choice.
    init(capacity: Int, shardCount: Int = 16, probeLength: Int = 8) {
        let shardCount = max(1, shardCount)
        self.probeLength = max(1, probeLength)
        shardCapacity = max(self.probeLength, (max(1, capacity) + shardCount - 1) / shardCount)
        shards = (0..<shardCount).map { _ in ShardBox() }
    }

    /// Total slots: the most entries ever held at once.
    var slotCount: Int { shards.count * shardCapacity }

    /// Slots holding a client (walks every shard; for tests and diagnostics).
    var occupiedCount: Int {
        shards.reduce(0) { total, box in
            total + box.state.withLock { shard in shard.fingerprints.reduce(0) { $0 + ($1 == 0 ? 0 : 1) } }
        }
    }

    /// The fingerprint of `client` in `rateClass`: never 0, which marks a free slot.
    func fingerprint(_ client: ClientAddressKey, _ rateClass: some Hashable) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(client)
        hasher.combine(rateClass)
        let hash = UInt64(truncatingIfNeeded: hasher.finalize())
        return hash == 0 ? 1 : hash
    }

    /// Runs `body` on the entry of `fingerprint` under its shard's lock and keeps what `body` leaves; a
    /// client the table does not hold starts from a fresh entry, in a free or evicted slot.
    ///
    /// `body` gets the time to use: `now`, or the time the entry was last touched when the clock is behind
    /// it, so that an entry never sees its time go back.
    func update<Result>(_ fingerprint: UInt64, now: Int64, _ body: (inout Entry, Int64) -> Result) -> Result {
        withShard(fingerprint) { shard, start in
            let (slot, held) = Self.locate(fingerprint, in: shard, from: start, probing: probeLength, now: now)
            if !held {
                shard.fingerprints[slot] = fingerprint
                shard.touched[slot] = now
                shard.entries[slot] = Entry(freshAt: now)
            }
            let time = max(now, shard.touched[slot])
            shard.touched[slot] = time
            return body(&shard.entries[slot], time)
        }
    }

    /// Runs `body` on the entry of `fingerprint` without storing anything: a fresh entry when the table
    /// does not hold the client. The time is as for ``update(_:now:_:)``.
    func read<Result>(_ fingerprint: UInt64, now: Int64, _ body: (Entry, Int64) -> Result) -> Result {
        withShard(fingerprint) { shard, start in
            let (slot, held) = Self.locate(fingerprint, in: shard, from: start, probing: probeLength, now: now)
            guard held else { return body(Entry(freshAt: now), now) }
            return body(shard.entries[slot], max(now, shard.touched[slot]))
        }
    }

    /// Runs `body` with the shard of `fingerprint`, allocated, and the slot its probe starts at.
    private func withShard<Result>(_ fingerprint: UInt64, _ body: (inout Shard, Int) -> Result) -> Result {
        let box = shards[Int((fingerprint >> 48) % UInt64(shards.count))]
        let start = Int(fingerprint % UInt64(shardCapacity))
        let capacity = shardCapacity
        return box.state.withLock { shard in
            if shard.fingerprints.isEmpty {
                shard.fingerprints = Array(repeating: 0, count: capacity)
                shard.touched = Array(repeating: 0, count: capacity)
                shard.entries = Array(repeating: Entry(freshAt: 0), count: capacity)
            }
            return body(&shard, start)
        }
    }

    /// The slot of `fingerprint` (`held`), else the first free slot of its probe, else the slot to evict.
    ///
    /// Slots are never freed, only reused, so a client's slot always comes before the first free one.
    private static func locate(
        _ fingerprint: UInt64, in shard: Shard, from start: Int, probing probeLength: Int, now: Int64
    ) -> (slot: Int, held: Bool) {
        let capacity = shard.fingerprints.count
        var victim = start
        var victimWeight = Int64.max
        for step in 0..<min(probeLength, capacity) {
            let slot = (start + step) % capacity
            if shard.fingerprints[slot] == fingerprint { return (slot, true) }
            if shard.fingerprints[slot] == 0 { return (slot, false) }
            let weight = shard.entries[slot].evictionWeight(at: now)
            if weight < victimWeight || (weight == victimWeight && shard.touched[slot] < shard.touched[victim]) {
                victim = slot
                victimWeight = weight
            }
        }
        return (victim, false)
    }
}
