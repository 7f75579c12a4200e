/// The clock a ``MailChangeStream`` reads and waits by: when its last element went, when the next quiet element is
/// due, when `until` passes, and how long a park lasts. The server's streams run on the continuous clock; a test
/// hands a clock it moves itself, so that each of the stream's rules is shown without waiting for real time.
public struct MailStreamClock: Sendable {
    /// Now.
    public let now: @Sendable () -> ContinuousClock.Instant
    /// Returns after the duration on this clock; throws `CancellationError` when the task is cancelled first.
    public let sleep: @Sendable (Duration) async throws -> Void

    public init(
        now: @escaping @Sendable () -> ContinuousClock.Instant, sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.now = now
        self.sleep = sleep
    }

    /// The continuous clock, as the server runs.
    public static let continuous = MailStreamClock(now: { .now }, sleep: { try await Task.sleep(for: $0) })
}
