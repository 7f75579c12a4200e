/// How a caller waits for mail at one address: looks, then parks on the store's change stream and looks again when
/// that address's mail changes, until a look finds something or the time is up (``MailStore/waitFor(address:timeout:_:)``).
/// Shared by Mail.td's `/messages/wait` (through ``MailStore/nextUnread(address:timeout:)``) and MCP's
/// `wait_for_message`, so that how a wait wakes is written once.
public struct MailWait: Sendable {
    let store: MailStore

    /// - Parameter store: the store whose change stream wakes the wait.
    public init(store: MailStore) {
        self.store = store
    }

    /// The first thing `look` finds for `address`: at once when it finds one now, otherwise after a change there, or
    /// nil once `seconds` have passed (or the task is cancelled) without one.
    /// - Throws: what `look` throws.
    public func first<Found: Sendable>(
        at address: String, within seconds: Int, _ look: @Sendable () async throws -> Found?
    ) async throws -> Found? {
        try await store.waitFor(address: address, timeout: .seconds(seconds), look)
    }
}
