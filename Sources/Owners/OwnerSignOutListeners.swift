import Synchronization

/// Who is told when an owner signs out on the owner pages: the OpenID Provider, which sends back-channel logout tokens
/// to the relying parties that session signed in to (issue 88). Added once at start; told after the session closed.
public final class OwnerSignOutListeners: Sendable {
    private let listeners = Mutex<[@Sendable (_ sessionDigest: [UInt8]) async -> Void]>([])

    public init() {}

    /// Adds `listener`, told the SHA-256 digest of each session an owner signs out of (never the token).
    public func add(_ listener: @escaping @Sendable (_ sessionDigest: [UInt8]) async -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Tells every listener, one after the other, that session `token` was signed out of.
    func signedOut(token: String) async {
        let digest = OwnerSessions.digest(token)
        for listener in listeners.withLock({ $0 }) { await listener(digest) }
    }
}
