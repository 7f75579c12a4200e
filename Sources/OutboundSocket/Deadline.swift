#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point on the monotonic clock by which an operation must finish.
public struct Deadline: Sendable {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public let nanoseconds: UInt64

    /// Now on the monotonic clock, in nanoseconds.
    public static func nowNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The deadline `duration` from now.
    public static func after(_ duration: Duration) -> Deadline {
        Deadline(nanoseconds: nowNanoseconds() + duration.nanoseconds)
    }

    /// The earlier of two deadlines.
    public func earlier(_ other: Deadline) -> Deadline {
        nanoseconds <= other.nanoseconds ? self : other
    }

    /// Milliseconds left, rounded up, at least 0 (for `poll`).
    public var remainingMilliseconds: Int32 {
        let now = Deadline.nowNanoseconds()
        guard nanoseconds > now else { return 0 }
        return Int32(clamping: (nanoseconds - now + 999_999) / 1_000_000)
    }

    /// Whether the deadline has passed.
    public var hasPassed: Bool { Deadline.nowNanoseconds() >= nanoseconds }
}

extension Duration {
    /// The duration in whole nanoseconds, 0 when negative.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
