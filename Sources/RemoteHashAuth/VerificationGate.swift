import Foundation

/// Bounds Argon2 verifications by count and by the memory they claim together, so that a burst of
/// logins against expensive remote hashes turns into 503s instead of an out-of-memory kill.
final class VerificationGate: @unchecked Sendable {
    // @unchecked: `running` and `claimedKiB` are only touched under `lock`.
    private let lock = NSLock()
    private let maxRunning: Int
    private let budgetKiB: UInt64
    private var running = 0
    private var claimedKiB: UInt64 = 0
    private var admitted = 0

    init(maxRunning: Int, budgetKiB: UInt64) {
        self.maxRunning = max(1, maxRunning)
        self.budgetKiB = budgetKiB
    }

    /// Claims a slot and `memoryKiB`; false (nothing claimed) when either limit would be passed.
    func tryEnter(memoryKiB: UInt32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard running < maxRunning, claimedKiB + UInt64(memoryKiB) <= budgetKiB else { return false }
        running += 1
        admitted += 1
        claimedKiB += UInt64(memoryKiB)
        return true
    }

    /// How many verifications were let through since start (for tests and metrics).
    var admittedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return admitted
    }

    /// Returns what ``tryEnter(memoryKiB:)`` claimed.
    func leave(memoryKiB: UInt32) {
        lock.lock()
        running -= 1
        claimedKiB -= UInt64(memoryKiB)
        lock.unlock()
    }
}
