/// One client's events of the last minute, in six 10-second buckets: a count over a window between 50
/// and 60 seconds long.
struct EventWindow: ClientTableEntry {
    /// Nanoseconds per bucket.
    static let bucketLength: Int64 = 10 * MonotonicClock.nanosecondsPerSecond
    /// Buckets per window (window = 60 s).
    static let bucketCount: Int64 = 6

    /// The bucket of the latest event.
    private var lastBucket: Int64
    /// Events per bucket, at `bucket mod 6`; lanes 6 and 7 stay unused.
    private var counts = SIMD8<UInt32>()

    init(freshAt now: Int64) {
        lastBucket = Self.bucket(now)
    }

    /// The events in the window: what forgetting the client would wipe.
    func evictionWeight(at now: Int64) -> Int64 {
        Int64(total(at: now))
    }

    /// The events in the window that ends at `now`.
    func total(at now: Int64) -> Int {
        let bucket = max(Self.bucket(now), lastBucket)
        var sum = 0
        var oldest = max(bucket - Self.bucketCount + 1, lastBucket - Self.bucketCount + 1)
        while oldest <= lastBucket {
            sum += Int(counts[Self.lane(oldest)])
            oldest += 1
        }
        return sum
    }

    /// Records one event at `now`; returns the events in the window, this one included.
    mutating func record(at now: Int64) -> Int {
        let bucket = max(Self.bucket(now), lastBucket)
        if bucket - lastBucket >= Self.bucketCount {
            counts = SIMD8()
        } else {
            var passed = lastBucket + 1
            while passed <= bucket {
                counts[Self.lane(passed)] = 0
                passed += 1
            }
        }
        lastBucket = bucket
        let lane = Self.lane(bucket)
        if counts[lane] < .max { counts[lane] += 1 }
        return Int(counts.wrappedSum())
    }

    private static func bucket(_ now: Int64) -> Int64 {
        now >= 0 ? now / bucketLength : (now - bucketLength + 1) / bucketLength
    }

    private static func lane(_ bucket: Int64) -> Int {
        Int(((bucket % bucketCount) + bucketCount) % bucketCount)
    }
}
