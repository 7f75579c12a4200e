/// Told the id of each grant revoked through ``OAuthGrantStore``, after the write committed: where an instance's
/// cache of live grants drops it at once (the other instances hear `postern_grants` on PostgreSQL). The composition
/// root wires the resource side's cache here; the store knows no cache.
public protocol OAuthGrantRevocationObserver: Sendable {
    /// Grant `grantID` was revoked (its codes, refresh and access tokens died with it).
    func grantRevoked(_ grantID: String)
}
