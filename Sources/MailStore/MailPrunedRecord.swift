import Synchronization

/// The ids of the messages retention pruned lately in this process (``MailStore/prune(_:now:)``), so that
/// a consumer of the change stream can tell a pruned message from one deleted through a door: Mailpit's events say
/// `prune` for retention's pass, as Mailpit's own pruning does, and `delete` for a delete.
///
/// Bounded: the newest ``capacity`` ids are kept, older ones forgotten first (a consumer looks right after the pass's
/// announcement). Thread-safe behind a `Mutex`.
public final class MailPrunedRecord: Sendable {
    /// How many ids are kept: five passes of ``MailStore/pruneBatch``.
    public static let capacity = 5 * MailStore.pruneBatch

    private struct State {
        var order: [String] = []
        var ids: Set<String> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Records `ids` as pruned, forgetting the oldest past ``capacity``.
    func record(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        state.withLock { state in
            for id in ids where state.ids.insert(id).inserted { state.order.append(id) }
            let excess = state.order.count - Self.capacity
            if excess > 0 {
                for id in state.order.prefix(excess) { state.ids.remove(id) }
                state.order.removeFirst(excess)
            }
        }
    }

    /// Whether message `id` went by retention in this process lately.
    public func contains(_ id: String) -> Bool {
        state.withLock { $0.ids.contains(id) }
    }
}
