import OAuthGrants

/// An app an owner connected (a live OAuth grant with its client's name), as the owner page lists it.
public typealias OwnerGrant = OAuthConnectedApp

/// The owner's side of the grant model: list an owner's live grants and revoke one, through the grants target's
/// ``OAuthGrantStore`` (its revocation, observed by the instance's cache; on PostgreSQL the table's trigger also
/// notifies `postern_grants`, so every instance drops the grant at once). Holds no SQL.
public struct OwnerGrants: Sendable {
    let store: OAuthGrantStore
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - store: the grant model.
    ///   - clock: Unix seconds (what "live" is measured against, and the revocation's time).
    public init(store: OAuthGrantStore, clock: @escaping @Sendable () -> Int64) {
        self.store = store
        self.clock = clock
    }

    /// The live (unrevoked, unexpired) grants of `ownerID`, newest first; a consent whose code was never redeemed
    /// is not listed.
    /// - Throws: storage errors.
    public func grants(ownerID: String) async throws -> [OwnerGrant] {
        try await store.connectedApps(ownerID: ownerID, now: clock())
    }

    /// Revokes grant `id` when it is `ownerID`'s and live; its refresh and access tokens stop working with it.
    /// - Returns: false when `ownerID` has no live grant `id` (someone else's, unknown, or revoked already).
    /// - Throws: storage errors.
    public func revoke(id: String, ownerID: String) async throws -> Bool {
        try await store.revoke(grantID: id, now: clock(), ownerID: ownerID)
    }
}
