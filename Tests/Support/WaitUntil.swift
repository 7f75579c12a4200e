import Testing

/// Returns once `condition` holds, polling every 2 ms; records the issue "never: `what`" and returns after `limit`
/// (60 s: a passing test returns at once, so only a failure waits that long, and a busy machine passes) when it never
/// does. For a test that waits on another task (a stream parked, an event written), never to measure time.
public func waitUntil(
    _ what: String, limit: Duration = .seconds(60), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        if ContinuousClock.now >= deadline {
            Issue.record("never: \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}
