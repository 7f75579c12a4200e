import AgentPoW
import AuthCrypto
import Dispatch
import Foundation
import Synchronization

/// A solved agent challenge: the nonce and the lowercase hex of its scrypt output.
public struct AgentPoWSolution: Sendable, Equatable {
    /// The smallest nonce whose scrypt output has enough leading zero bits.
    public let nonce: UInt64
    /// Lowercase hex of the 64-byte scrypt output (128 characters).
    public let powHex: String

    /// A solution as found (or, in tests, as made up).
    public init(nonce: UInt64, powHex: String) {
        self.nonce = nonce
        self.powHex = powHex
    }
}

/// Why the solver gave up.
public enum AgentPoWSolverError: Error, Sendable, Equatable {
    /// No nonce below the attempt limit solves the challenge.
    case exhausted(attempts: UInt64)
}

/// Solves agent proof-of-work challenges on several threads at once (client side: the `postern agent`
/// commands and the tests).
///
/// Each of `T` dedicated threads, `t`, tries nonces `t, t+T, t+2T, ...`; when one finds a solution the
/// others finish the nonces below it, so the answer is always the smallest solving nonce, as a sequential
/// client finds it.
public struct AgentPoWSolver: Sendable {
    /// Threads used by ``solve(challenge:salt:difficulty:maxAttempts:)``.
    public let threads: Int

    /// Creates a solver using `threads` threads (default: every active core).
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.threads = max(1, threads)
    }

    /// Finds the smallest nonce whose scrypt output starts with `difficulty` zero bits. Blocks the caller.
    /// - Parameters:
    ///   - challenge: the challenge id (`jti`).
    ///   - salt: the salt text from the challenge response.
    ///   - difficulty: leading zero bits required.
    ///   - maxAttempts: give up after trying nonces `0..<maxAttempts`.
    ///   - progressInterval: how often `progress` hears of the search (from the calling thread, which
    ///     otherwise only waits; the search threads only count their tries).
    ///   - progress: called every `progressInterval` while the search runs.
    /// - Throws: ``AgentPoWSolverError/exhausted(attempts:)`` past the limit; `CryptoError` when scrypt fails.
    public func solve(
        challenge: String, salt: String, difficulty: Int, maxAttempts: UInt64 = .max,
        progressInterval: Duration = .seconds(1), progress: ((AgentPoWProgress) -> Void)? = nil
    ) throws -> AgentPoWSolution {
        let search = Search(limit: maxAttempts)
        let started = ContinuousClock.now
        let width = UInt64(threads)
        let finished = DispatchSemaphore(value: 0)
        for lane in 0..<threads {
            let thread = Thread {
                Self.searchLane(
                    UInt64(lane), width: width, challenge: challenge, salt: salt, difficulty: difficulty, search)
                finished.signal()
            }
            thread.name = "postern-pow-solver-\(lane)"
            thread.start()
        }
        var running = threads
        let interval = Double(progressInterval.components.seconds) + Double(progressInterval.components.attoseconds) / 1e18
        while running > 0 {
            if finished.wait(timeout: .now() + interval) == .success {
                running -= 1
            } else if let progress {
                let elapsed = ContinuousClock.now - started
                progress(
                    AgentPoWProgress(
                        difficulty: difficulty, attempts: search.attempts,
                        elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            }
        }
        return try search.result()
    }

    /// Tries nonces `lane, lane + width, ...` until one solves, a smaller solution is known, or the limit.
    private static func searchLane(
        _ lane: UInt64, width: UInt64, challenge: String, salt: String, difficulty: Int, _ search: Search
    ) {
        var nonce = lane
        while search.shouldTry(nonce) {
            do {
                let digest = try AgentProofOfWork.digest(challenge: challenge, nonce: String(nonce), salt: salt)
                if AgentProofOfWork.meets(difficulty: difficulty, digest) {
                    search.found(nonce, digest)
                    return
                }
            } catch {
                search.failed(error)
                return
            }
            let (next, overflow) = nonce.addingReportingOverflow(width)
            if overflow { return }
            nonce = next
        }
    }
}

/// State shared by the solver's threads.
private final class Search: Sendable {
    private struct State {
        var best: (nonce: UInt64, digest: [UInt8])?
        var error: (any Error)?
        var attempts: UInt64 = 0
    }

    private let state = Mutex(State())
    private let limit: UInt64

    init(limit: UInt64) {
        self.limit = limit
    }

    /// Whether `nonce` is still worth trying; counts it as a try when it is.
    func shouldTry(_ nonce: UInt64) -> Bool {
        state.withLock { state in
            guard state.error == nil, nonce < limit, state.best.map({ nonce < $0.nonce }) ?? true else { return false }
            state.attempts += 1
            return true
        }
    }

    /// Nonces tried (or being tried) so far.
    var attempts: UInt64 { state.withLock { $0.attempts } }

    func found(_ nonce: UInt64, _ digest: [UInt8]) {
        state.withLock { state in
            if state.best.map({ nonce < $0.nonce }) ?? true { state.best = (nonce, digest) }
        }
    }

    func failed(_ error: any Error) {
        state.withLock { state in
            if state.error == nil { state.error = error }
        }
    }

    func result() throws -> AgentPoWSolution {
        let (best, error) = state.withLock { ($0.best, $0.error) }
        if let best { return AgentPoWSolution(nonce: best.nonce, powHex: Hex.encode(best.digest)) }
        if let error { throw error }
        throw AgentPoWSolverError.exhausted(attempts: limit)
    }
}
