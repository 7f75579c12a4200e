/// How failed sign-ins slow one email: the first ``freeFailures`` cost nothing; each later failure blocks that email
/// for twice as long as the one before (2 s, 4 s, 8 s, ...) up to ``maximumDelay``. A success clears the count.
public struct OwnerBackoff: Sendable, Equatable {
    /// Failures allowed before any delay. Default 5.
    public var freeFailures: Int64 = 5
    /// The longest block, in seconds. Default 15 minutes.
    public var maximumDelay: Int64 = 900

    public init(freeFailures: Int64 = 5, maximumDelay: Int64 = 900) {
        self.freeFailures = freeFailures
        self.maximumDelay = maximumDelay
    }

    /// Seconds the email is blocked after its `failures`-th failure in a row.
    public func delay(afterFailures failures: Int64) -> Int64 {
        let over = failures - freeFailures
        guard over > 0 else { return 0 }
        guard over < 32 else { return maximumDelay }
        return min(Int64(1) << over, maximumDelay)
    }
}
