import Directory

/// The inboxes of owners, with at most ``limit`` held by one owner: making or linking one more throws
/// ``OwnedInboxError/limitReached(limit:)``. Every place an owner gets an inbox (the owner pages, the custom-domain
/// pages, the OAuth consent) goes through it, so that open sign-up cannot mint inboxes without end, as the agent
/// surface's proof of work would otherwise have cost.
///
/// The count is read before the write: owners' concurrent posts may pass the limit by as many as run at once, which
/// the owner pages' per-address rate limit bounds.
public struct CappedOwnedInboxes: OwnedInboxes {
    let base: any OwnedInboxes
    /// Most live inboxes one owner may hold.
    public let limit: Int

    /// - Parameters:
    ///   - base: the inboxes (the agent surface's).
    ///   - limit: most live inboxes one owner may hold (``OwnersConfiguration/maxInboxes``).
    public init(_ base: any OwnedInboxes, limit: Int) {
        self.base = base
        self.limit = limit
    }

    public func inboxes(ownerID: String) async throws -> [OwnedInbox] {
        try await base.inboxes(ownerID: ownerID)
    }

    public func inbox(accountID: String, ownerID: String) async throws -> OwnedInbox? {
        try await base.inbox(accountID: accountID, ownerID: ownerID)
    }

    public func inboxes(accountIDs: [String]) async throws -> [OwnedInbox] {
        try await base.inboxes(accountIDs: accountIDs)
    }

    public func createInbox(username: String, domain: String?, ownerID: String) async throws
        -> (inbox: OwnedInbox, apiKey: String)
    {
        try await requireRoom(ownerID)
        return try await base.createInbox(username: username, domain: domain, ownerID: ownerID)
    }

    public func link(apiKey: String, ownerID: String) async throws -> OwnedInbox {
        try await requireRoom(ownerID)
        return try await base.link(apiKey: apiKey, ownerID: ownerID)
    }

    public func rotateKey(accountID: String, ownerID: String) async throws -> String? {
        try await base.rotateKey(accountID: accountID, ownerID: ownerID)
    }

    /// Throws ``OwnedInboxError/limitReached(limit:)`` when `ownerID` holds ``limit`` inboxes or more.
    public func unlink(accountID: String, ownerID: String) async throws -> OwnedInbox? {
        try await base.unlink(accountID: accountID, ownerID: ownerID)
    }

    public func delete(accountID: String, ownerID: String) async throws -> OwnedInbox? {
        try await base.delete(accountID: accountID, ownerID: ownerID)
    }

        private func requireRoom(_ ownerID: String) async throws {
        if try await base.inboxes(ownerID: ownerID).count >= limit { throw OwnedInboxError.limitReached(limit: limit) }
    }
}
