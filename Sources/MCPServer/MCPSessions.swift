import AuthCrypto
import Synchronization

/// `Mcp-Session-Id` sessions that hold no state to share: an id carries when it was opened, its protocol version, a
/// random part, and an HMAC-SHA256 of those keyed by the server's secret (shared by every instance) and the digest of
/// the credential that opened it. So any instance knows a session of the request's own credential (several instances
/// need no sticky routing), another credential's id fails the MAC exactly as a made-up one, and an id lives
/// `lifetimeSeconds` from its opening. The secret matters where the credential's digest is no secret (an OAuth
/// connection is bound to its owner and client, both named in its access token): without it anyone could mint ids,
/// and mint again one that was closed once the instance that closed it forgets it.
///
/// A closed id (DELETE) is remembered on the instance that closed it until it would have expired, at most `capacity`
/// of them (the soonest to expire makes way); another instance still takes it until then.
public final class MCPSessions: Sendable {
    private let closed = Mutex<[String: Int64]>([:])
    let versions: [String]
    let capacity: Int
    let lifetimeSeconds: Int64
    let clock: @Sendable () -> Int64
    /// The server's secret, the outer key of every id's MAC.
    private let secret: [UInt8]
    static let macBytes = 16

    /// The name of the sessions' secret among the server's shared secrets (`server_secrets`).
    public static let secretName = "mcp.sessions"

    /// A new secret for ``secretName``: 32 random bytes.
    public static func newSecret() -> [UInt8] { SecureRandom.bytes(32) }
    static let bodyBytes = 8 + 1 + 16

    /// - Parameters:
    ///   - versions: the protocol versions an id may name (at most 256).
    ///   - capacity: the most closed ids remembered.
    ///   - lifetimeSeconds: how long an id lives from its opening.
    ///   - clock: Unix seconds.
    ///   - secret: random bytes every instance shares (`server_secrets`), never sent anywhere.
    public init(
        versions: [String], capacity: Int, lifetimeSeconds: Int64, secret: [UInt8],
        clock: @escaping @Sendable () -> Int64
    ) {
        self.secret = secret
        self.versions = Array(versions.prefix(256))
        self.capacity = max(1, capacity)
        self.lifetimeSeconds = lifetimeSeconds
        self.clock = clock
    }

    /// Opens a session at protocol version `protocolVersion` (one of `versions`) for the credential with digest
    /// `credential`; returns its id (55 base64url characters).
    public func open(credential: [UInt8], protocolVersion: String) -> String {
        let opened = UInt64(bitPattern: clock())
        var body = (0..<8).map { UInt8(truncatingIfNeeded: opened >> (56 - 8 * $0)) }
        body.append(UInt8(versions.firstIndex(of: protocolVersion) ?? 0))
        body += SecureRandom.bytes(16)
        return Base64URL.encode(body + mac(body, credential))
    }

    /// The protocol version of session `id` when the credential of digest `credential` opened it, it has not
    /// expired, and it was not closed here; nil otherwise.
    public func use(_ id: String, credential: [UInt8]) -> String? {
        guard id.utf8.count <= 64, let bytes = Base64URL.decode(id), bytes.count == Self.bodyBytes + Self.macBytes
        else { return nil }
        let body = Array(bytes[..<Self.bodyBytes])
        guard constantTimeEquals(Array(bytes[Self.bodyBytes...]), mac(body, credential)) else { return nil }
        let opened = Int64(bitPattern: body[..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let now = clock()
        guard opened <= now + 30, now - opened < lifetimeSeconds, Int(body[8]) < versions.count else { return nil }
        guard closed.withLock({ $0[id] == nil }) else { return nil }
        return versions[Int(body[8])]
    }

    /// Closes session `id` if the credential of digest `credential` opened it and it is open; whether it was.
    public func close(_ id: String, credential: [UInt8]) -> Bool {
        guard use(id, credential: credential) != nil, let bytes = Base64URL.decode(id) else { return false }
        let opened = Int64(bitPattern: bytes[..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let now = clock()
        closed.withLock { closed in
            if closed.count >= capacity { closed = closed.filter { $0.value > now } }
            if closed.count >= capacity, let soonest = closed.min(by: { $0.value < $1.value }) {
                closed[soonest.key] = nil
            }
            closed[id] = opened + lifetimeSeconds
        }
        return true
    }

    /// HMAC(HMAC(secret, credential), body), truncated: bound to this server and to the credential.
    private func mac(_ body: [UInt8], _ credential: [UInt8]) -> [UInt8] {
        let key = HMACSHA256.authenticationCode(key: secret, message: credential)
        return Array(HMACSHA256.authenticationCode(key: key, message: body).prefix(Self.macBytes))
    }
}
