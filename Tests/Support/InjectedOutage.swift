import Storage
import Synchronization

/// A database outage a test turns on and off, as a failover makes one: given to a ``CountingDatabase`` as its
/// `beforeStatement`, it fails every statement with `StorageError` `.unavailable` while the database is away, and counts
/// them. The database goes away at ``begin()``, or at the first statement after ``arm(when:)`` that the condition picks
/// (a moment inside the code under test), and comes back at ``end()``.
public final class InjectedOutage: Sendable {
    private struct State {
        var trigger: (@Sendable (String) -> Bool)?
        var away = false
        var failed = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// How many statements failed so far.
    public var failed: Int { state.withLock { $0.failed } }

    /// The database goes away now.
    public func begin() { state.withLock { $0.away = true } }

    /// The database goes away at the first statement from now on for which `condition` holds (that statement fails).
    public func arm(when condition: @escaping @Sendable (String) -> Bool) { state.withLock { $0.trigger = condition } }

    /// The database is back.
    public func end() { state.withLock { $0.away = false } }

    /// Fails `sql` while the database is away; a ``CountingDatabase``'s `beforeStatement`.
    /// - Throws: `StorageError` `.unavailable`.
    public func beforeStatement(_ sql: String) throws {
        try state.withLock { state in
            if let trigger = state.trigger, trigger(sql) { (state.trigger, state.away) = (nil, true) }
            if state.away {
                state.failed += 1
                throw StorageError(.unavailable, "injected: the database is away")
            }
        }
    }
}
