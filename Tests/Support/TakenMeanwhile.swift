import Directory
import Synchronization

/// Another surface that takes a domain between this surface's first look and its insert: free at the first
/// question, held from the second on.
public final class TakenMeanwhile: CustomDomainClaims {
    /// How many times it was asked.
    public let asked = Mutex(0)

    public init() {}

    public func holds(domain: String) async throws -> Bool {
        asked.withLock {
            $0 += 1
            return $0 > 1
        }
    }
}
