import OAuthGrants

/// An app an owner connected (a live OAuth grant with its client's name), as the owner page lists it.
public typealias OwnerGrant = OAuthConnectedApp

/// The owner's side of the grant model: list an owner's live grants and revoke one, through the grants target's
/// ``OAuthGrantStore`` (its revocation, observed by the instance's cache; on PostgreSQL the table's trigger also
/// notifies `postern_grants`, so every instance drops the grant at once). Holds no SQL.
public struct OwnerGrants: Sendable {
    let store: OAuthGrantStore
    let clock: @Sendable () -> Int64
    /// The OpenID apps the owner allowed (issue 88); nil: none are listed.
    let openID: (consents: OIDCSignIns, parties: OIDCRelyingParties)?

    /// - Parameters:
    ///   - store: the grant model.
    ///   - clock: Unix seconds (what "live" is measured against, and the revocation's time).
    ///   - openID: the OpenID Provider's consents and relying parties, to list and revoke the apps the owner signs in
    ///     to; nil when the provider is off.
    public init(
        store: OAuthGrantStore, clock: @escaping @Sendable () -> Int64,
        openID: (consents: OIDCSignIns, parties: OIDCRelyingParties)? = nil
    ) {
        self.store = store
        self.clock = clock
        self.openID = openID
    }

    /// The OpenID apps `ownerID` allowed (their consent remembered), oldest first: client id, name, scopes, when.
    public func openIDApps(ownerID: String) async throws
        -> [(clientID: String, name: String, scopes: [String], grantedAt: Int64)]
    {
        guard let openID else { return [] }
        var apps: [(clientID: String, name: String, scopes: [String], grantedAt: Int64)] = []
        for consent in try await openID.consents.consents(ownerID: ownerID) {
            let name = try await openID.parties.party(id: consent.clientID)?.name ?? consent.clientID
            apps.append((consent.clientID, name, consent.scopes, consent.grantedAt))
        }
        return apps
    }

    /// Forgets `ownerID`'s consent to the OpenID app `clientID` (the next sign-in asks again) and revokes its
    /// access tokens; false when there was none.
    public func revokeOpenID(clientID: String, ownerID: String) async throws -> Bool {
        guard let openID else { return false }
        return try await openID.consents.revokeConsent(ownerID: ownerID, clientID: clientID, now: clock())
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
