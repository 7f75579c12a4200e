import JWT

/// Where a running Postern's signing keys come from: the data directory (``KeyStore``) or the database
/// that several instances share (``DatabaseKeyStore``).
public protocol SigningKeyStore: AnyObject, Sendable {
    /// The key set: always the same instance, whose keys follow rotations and reloads.
    func keySet() -> JWTKeySet
    /// Adds new keys of every generated kind and returns them.
    @discardableResult
    func rotate(now: Int64) throws(KeyStoreError) -> [KeyInfo]
    /// Picks up what another process changed, and drops keys past their retention.
    func reload(now: Int64) throws(KeyStoreError)
    /// Every key, never the key material.
    func list() -> [KeyInfo]
    /// Reloads soon, off the caller's thread: another instance has changed the keys (a notification).
    func reloadSoon()
    /// Waits for reloads started by ``reloadSoon()`` to finish (before the database closes).
    func finishReloads()
}

extension KeyStore: SigningKeyStore {
    /// Nothing tells a data directory's store of changes: it rereads on its poll.
    public func reloadSoon() {}
    /// No reload runs off the poll.
    public func finishReloads() {}
}

extension SigningKeyStore {
    /// The keys `change` added to the listing.
    func keysAdded(by change: () throws(KeyStoreError) -> Void) throws(KeyStoreError) -> [KeyInfo] {
        let before = Set(list().map(\.kid))
        try change()
        return list().filter { !before.contains($0.kid) }
    }
}
