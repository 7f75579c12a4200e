/// How a caller waits for mail to arrive: looks at the store until a look finds something or the time is up. Shared by
/// Mail.td's `/messages/wait` and MCP's `wait_for_message`, so that how the wait wakes (a pause between looks now)
/// changes in one place.
public struct MailWait: Sendable {
    let pause: @Sendable () async -> Void

    /// What happens between two looks unless told otherwise: 100 ms, so that mail delivered by another process
    /// (`postern mail deliver`) is seen too.
    public static let pauseOf100Milliseconds: @Sendable () async -> Void = {
        try? await Task.sleep(for: .milliseconds(100))
    }

    /// - Parameter pause: what happens between two looks (tests pass one that reports each wait).
    public init(pause: @escaping @Sendable () async -> Void = MailWait.pauseOf100Milliseconds) {
        self.pause = pause
    }

    /// The first thing `look` finds: at once when it finds one now, otherwise after a later look, or nil once
    /// `seconds` have passed (or the task is cancelled) without one.
    /// - Throws: what `look` throws.
    public func first<Found>(within seconds: Int, _ look: () async throws -> Found?) async throws -> Found? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if let found = try await look() { return found }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            await pause()
        }
    }
}
