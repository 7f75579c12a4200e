import Synchronization

/// The memory every mail session together may hold for what clients send before it is stored: IMAP's literals (an
/// `APPEND`'s message) and SMTP's `DATA`. One budget per process, shared by every listener; a session takes bytes
/// from it before it keeps them and gives them back when it lets them go. Past ``capacity`` a session is refused
/// (IMAP `NO [LIMIT]`, SMTP `452 4.3.1`) and the process goes on: review 7 crashed the server with 53 connections each
/// announcing a 32 MiB literal, which per-session limits alone allowed.
public final class BufferBudget: Sendable {
    /// The most bytes held at once.
    public let capacity: Int
    private let held = Atomic<Int>(0)

    /// A budget of `capacity` bytes.
    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// Bytes held now.
    public var inUse: Int { held.load(ordering: .relaxed) }

    /// Takes `bytes` when they fit under ``capacity``.
    /// - Returns: whether they were taken; the caller holds them until ``release(_:)``.
    public func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        var current = held.load(ordering: .relaxed)
        while true {
            guard bytes <= capacity - current else { return false }
            let (exchanged, original) = held.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back `bytes` taken by ``reserve(_:)``.
    public func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        held.subtract(bytes, ordering: .relaxed)
    }
}

/// Bytes one message holds of a ``BufferBudget`` (an SMTP message's text, an IMAP command's literals), grown as it
/// grows and given back when the last holder lets it go (a message dropped, refused or stored on whatever path, none of
/// which has to remember).
///
/// `@unchecked Sendable`: it lives in a session's state, which moves between threads only with the session, and
/// ``grow(to:step:)`` is called by that one holder at a time; the budget's own count is atomic.
public final class BufferReservation: @unchecked Sendable {
    /// The budget the bytes come from.
    public let budget: BufferBudget
    /// The bytes held.
    public private(set) var bytes = 0

    /// A reservation of nothing yet from `budget`.
    public init(_ budget: BufferBudget) {
        self.budget = budget
    }

    /// Holds at least `total` bytes, taking at least `step` more at a time so that a growing text asks rarely.
    /// - Returns: false when the budget cannot give them (what is held stays held).
    public func grow(to total: Int, step: Int) -> Bool {
        guard total > bytes else { return true }
        let more = max(step, total - bytes)
        guard budget.reserve(more) else { return false }
        bytes += more
        return true
    }

    deinit {
        budget.release(bytes)
    }
}
