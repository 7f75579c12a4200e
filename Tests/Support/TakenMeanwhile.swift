import Directory
import Synchronization

/// Another surface that verifies a domain between this surface's first look and its write: free at the first
/// question, held verified from the second on. Records the domains whose pending claims it was told to drop.
public final class TakenMeanwhile: CustomDomainClaims {
    /// How many times it was asked.
    public let asked = Mutex(0)
    /// The domains ``dropPending(domain:)`` was called with.
    public let dropped = Mutex<[String]>([])

    public init() {}

    public func holdsVerified(domain: String) async throws -> Bool {
        asked.withLock {
            $0 += 1
            return $0 > 1
        }
    }

    public func dropPending(domain: String) async throws {
        dropped.withLock { $0.append(domain) }
    }

    public func hasAddress(_ address: String) async throws -> Bool { false }
}
