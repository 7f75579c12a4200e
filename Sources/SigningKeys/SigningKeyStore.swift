import JWT

/// Where a running Postern's signing keys come from: the data directory (``KeyStore``) or the database
/// that several instances share (``DatabaseKeyStore``).
public protocol SigningKeyStore: AnyObject, Sendable {
    /// The key set: always the same instance, whose keys follow rotations and reloads.
    func keySet() -> JWTKeySet
    /// Adds new keys of every generated kind and returns them.
    @discardableResult
    func rotate(now: Int64) throws(KeyStoreError) -> [KeyInfo]
    /// Retires the key `kid` now, for a key that leaked: it leaves the key set and the JWKS at once instead of
    /// verifying for its retention, so every token it signed is refused. When it was the active key of its kind a new
    /// key of that kind is made and signs at once. Returns the keys added.
    /// - Throws: `KeyStoreError` `.unknownKey` when no key has `kid`; `.configuration` for the `JWT_PRIVATE_KEY` key
    ///   (change or unset the variable instead).
    @discardableResult
    func retireNow(kid: String, now: Int64) throws(KeyStoreError) -> [KeyInfo]
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
    /// The refusal of a kid no key has, naming it only when it is a well-formed kid.
    static func unknownKey(_ kid: String) -> KeyStoreError {
        KeyStoreError(
            .unknownKey, JWTKey.isValidKID(kid) ? "no signing key has kid \(kid)" : "no signing key has that kid")
    }

    /// The refusal to retire `JWT_PRIVATE_KEY`'s key, which lives in the configuration.
    static var environmentKeyRetirement: KeyStoreError {
        KeyStoreError(
            .configuration,
            "the key is JWT_PRIVATE_KEY's: it cannot be retired here; replace or unset JWT_PRIVATE_KEY (and "
                + "JWT_PUBLIC_KEY) on every instance and restart them")
    }

    /// The keys `change` added to the listing.
    func keysAdded(by change: () throws(KeyStoreError) -> Void) throws(KeyStoreError) -> [KeyInfo] {
        let before = Set(list().map(\.kid))
        try change()
        return list().filter { !before.contains($0.kid) }
    }
}
