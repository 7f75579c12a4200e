import Synchronization

/// Bounds Argon2 verifications by count and by the memory they claim together, so that a burst of
/// logins against expensive remote hashes turns into 503s instead of an out-of-memory kill.
final class VerificationGate: Sendable {
    private struct State {
        var running = 0
        var claimedKiB: UInt64 = 0
        var admitted = 0
    }

    private let state = Mutex(State())
    private let maxRunning: Int
    private let budgetKiB: UInt64

    init(maxRunning: Int, budgetKiB: UInt64) {
        self.maxRunning = max(1, maxRunning)
        self.budgetKiB = budgetKiB
    }

    /// Claims a slot and `memoryKiB`; false (nothing claimed) when either limit would be passed.
    func tryEnter(memoryKiB: UInt32) -> Bool {
        state.withLock { state in
            guard state.running < maxRunning, state.claimedKiB + UInt64(memoryKiB) <= budgetKiB else { return false }
            state.running += 1
            state.admitted += 1
            state.claimedKiB += UInt64(memoryKiB)
            return true
        }
    }

    /// How many verifications were let through since start (for tests and metrics).
    var admittedCount: Int { state.withLock { $0.admitted } }

    /// Returns what ``tryEnter(memoryKiB:)`` claimed.
    func leave(memoryKiB: UInt32) {
        state.withLock { state in
            state.running -= 1
            state.claimedKiB -= UInt64(memoryKiB)
        }
    }
}
