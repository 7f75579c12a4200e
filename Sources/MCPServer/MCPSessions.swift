import AuthCrypto
import Synchronization

/// The open `Mcp-Session-Id` sessions: at most `capacity` (the least recently used one makes way), each forgotten
/// after `idleSeconds` unused, each bound to the digest of the credential that opened it, so that another client's
/// session id is as unknown as a made-up one. Per instance: a session lives on the instance that opened it.
public final class MCPSessions: Sendable {
    struct Entry {
        let credential: [UInt8]
        let protocolVersion: String
        var lastUsed: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])
    let capacity: Int
    let idleSeconds: Int64
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - capacity: the most sessions held at once.
    ///   - idleSeconds: how long an unused session lives.
    ///   - clock: seconds (any epoch that only moves forward).
    public init(capacity: Int, idleSeconds: Int64, clock: @escaping @Sendable () -> Int64) {
        self.capacity = max(1, capacity)
        self.idleSeconds = idleSeconds
        self.clock = clock
    }

    /// Opens a session for the credential with digest `credential`; returns its id (22 base64url characters).
    public func open(credential: [UInt8], protocolVersion: String) -> String {
        let id = Base64URL.encode(SecureRandom.bytes(16))
        let now = clock()
        entries.withLock { entries in
            entries = entries.filter { now - $0.value.lastUsed < idleSeconds }
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                entries[oldest.key] = nil
            }
            entries[id] = Entry(credential: credential, protocolVersion: protocolVersion, lastUsed: now)
        }
        return id
    }

    /// The protocol version of session `id` when it is open and was opened with the credential of digest
    /// `credential` (compared in constant time); nil otherwise. Marks the session used.
    public func use(_ id: String, credential: [UInt8]) -> String? {
        let now = clock()
        return entries.withLock { entries in
            guard var entry = entries[id] else { return nil }
            guard now - entry.lastUsed < idleSeconds else {
                entries[id] = nil
                return nil
            }
            guard constantTimeEquals(entry.credential, credential) else { return nil }
            entry.lastUsed = now
            entries[id] = entry
            return entry.protocolVersion
        }
    }

    /// Closes session `id` if the credential of digest `credential` opened it; whether it did.
    public func close(_ id: String, credential: [UInt8]) -> Bool {
        guard use(id, credential: credential) != nil else { return false }
        return entries.withLock { $0.removeValue(forKey: id) != nil }
    }

    /// How many sessions are held (expired ones until the next open sweeps them).
    public var count: Int { entries.withLock { $0.count } }
}
