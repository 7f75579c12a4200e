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

/// A signing key store whose every change is one update of its ring (``KeyStore``'s directory,
/// ``DatabaseKeyStore``'s tables), so that rotating, retiring a key now and rereading are written once, here.
protocol KeyRingUpdating: SigningKeyStore {
    /// `JWT_PRIVATE_KEY`'s key when it is set: it lives in the configuration and is never retired by the store.
    var environmentKey: JWTKey? { get }

    /// Synchronizes the ring with where it is kept and publishes its key set: keys past their retention dropped,
    /// missing kinds generated, every generated kind renewed when `rotating`, and the key `kid` dropped now when
    /// given (with a successor that signs at once when it was its kind's signing key).
    /// - Throws: `KeyStoreError` `.unknownKey` when the ring has no key `kid`; the store's storage errors.
    func update(now: Int64, rotating: Bool, dropping kid: String?) throws(KeyStoreError)
}

extension KeyRingUpdating {
    /// Adds a new key of every generated kind (HMAC, Ed25519, P-256, and RSA unless `JWT_PRIVATE_KEY` signs RS256:
    /// rotate that one by changing the variable); ``KeyStore``'s new keys sign at once and the keys they replace
    /// retire, ``DatabaseKeyStore``'s are published at once and sign after its promotion delay. Keys past their
    /// retention are dropped.
    /// - Returns: the new keys.
    /// - Throws: `KeyStoreError`.
    @discardableResult
    public func rotate(now: Int64) throws(KeyStoreError) -> [KeyInfo] {
        try keysAdded { () throws(KeyStoreError) in try update(now: now, rotating: true, dropping: nil) }
    }

    /// Drops the key `kid` from the ring now (a leaked key): tokens it signed are refused at once by this store, and
    /// by the others on the same ring at their next reload (a database's notify them at once). A new key of its kind
    /// is made, signing at once, when it was the active one.
    /// - Returns: the new key, if one was made.
    /// - Throws: `KeyStoreError` `.unknownKey` when the ring has no key `kid`, `.configuration` for
    ///   `JWT_PRIVATE_KEY`'s key, the store's storage errors.
    @discardableResult
    public func retireNow(kid: String, now: Int64) throws(KeyStoreError) -> [KeyInfo] {
        if kid == environmentKey?.kid { throw Self.environmentKeyRetirement }
        return try keysAdded { () throws(KeyStoreError) in try update(now: now, rotating: false, dropping: kid) }
    }

    /// Re-reads the ring (what another process or instance changed: a `postern keys rotate`, a rotation elsewhere),
    /// makes the keys whose signing time has come sign, and drops keys past their retention.
    /// - Throws: `KeyStoreError`.
    public func reload(now: Int64) throws(KeyStoreError) {
        try update(now: now, rotating: false, dropping: nil)
    }
}

extension KeyStore: KeyRingUpdating {
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
