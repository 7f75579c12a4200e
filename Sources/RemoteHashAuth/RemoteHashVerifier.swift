import AuthCrypto
import ComputePool
import Fetch
import Foundation
import Metrics

/// Fetches a remote hash, parses it, refuses costs above the limits, and verifies passwords against
/// it on the worker pool (CONTRACT 3.3).
struct RemoteHashVerifier: Sendable {
    let fetcher: any URLFetching
    let pool: WorkerPool
    let gate: VerificationGate
    let maxMemoryKiB: UInt32
    let maxIterations: UInt32
    let maxParallelism: UInt32

    /// Fetches `url` and returns the Argon2 hash it serves now, its costs already checked.
    /// - Throws: the CONTRACT 3.2 failure for the fetch, the format or the limits.
    func currentHash(at url: String) async throws(RemoteHashFailure) -> Argon2Hash {
        let response: FetchResponse
        do {
            response = try await fetcher.fetch(url)
        } catch {
            RemoteHashVerifier.count("postern_remote_hash_fetches_total", RemoteHashVerifier.metricLabel(error))
            throw RemoteHashFailure.fetch(error)
        }
        RemoteHashVerifier.count("postern_remote_hash_fetches_total", "ok")
        return try parse(response.body)
    }

    /// Parses a fetched body: UTF-8, trimmed, one PHC Argon2 string (`i`, `d`, `id`; v=16 or 19).
    func parse(_ body: [UInt8]) throws(RemoteHashFailure) -> Argon2Hash {
        guard let text = String(validating: body, as: UTF8.self) else {
            throw .unprocessable(RemoteHashMessage.notArgon2)
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let hash = try? Argon2Hash.parse(trimmed) else {
            throw .unprocessable(RemoteHashMessage.notArgon2)
        }
        guard hash.memoryKiB <= maxMemoryKiB, hash.iterations <= maxIterations, hash.parallelism <= maxParallelism
        else {
            throw .unprocessable(RemoteHashMessage.aboveLimits)
        }
        return hash
    }

    /// Whether `password` matches `hash`, computed on the worker pool.
    /// - Throws: ``RemoteHashFailure/busy`` when too many verifications (or too much memory) are in
    ///   flight or the pool's queue is full; a not-an-Argon2-hash failure when libargon2 rejects the
    ///   parameters.
    func verify(_ password: String, against hash: Argon2Hash) async throws(RemoteHashFailure) -> Bool {
        let bytes = Array(password.utf8)
        guard gate.tryEnter(memoryKiB: hash.memoryKiB) else {
            RemoteHashVerifier.count("postern_remote_hash_verifications_total", "busy")
            throw .busy
        }
        defer { gate.leave(memoryKiB: hash.memoryKiB) }
        do {
            let matched = try await pool.run(.passwordHash) { try Argon2.verify(hash, password: bytes) }
            RemoteHashVerifier.count("postern_remote_hash_verifications_total", matched ? "match" : "mismatch")
            return matched
        } catch is WorkerPoolError {
            RemoteHashVerifier.count("postern_remote_hash_verifications_total", "busy")
            throw .busy
        } catch {
            RemoteHashVerifier.count("postern_remote_hash_verifications_total", "error")
            throw .unprocessable(RemoteHashMessage.notArgon2)
        }
    }

    /// Increments a counter with one `result` dimension.
    private static func count(_ label: String, _ result: String) {
        Counter(label: label, dimensions: [("result", result)]).increment()
    }

    private static func metricLabel(_ error: FetchError) -> String {
        switch error {
        case .invalidURL, .insecureScheme: return "invalid_url"
        case .notAllowed: return "not_allowed"
        case .bodyTooLarge: return "too_large"
        case .overloaded: return "overloaded"
        case .timedOut: return "timed_out"
        case .badStatus: return "bad_status"
        case .resolutionFailed, .connectFailed, .tlsFailed, .tooManyRedirects, .malformedResponse: return "failed"
        }
    }
}
