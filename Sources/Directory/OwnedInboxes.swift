/// The port through which owners (people who sign in, issue 28) hold agent inboxes: implemented by the agent surface
/// over its accounts and the `owner_inboxes` table, used by the owner pages, the authorization server's inbox picker
/// and the resource servers' ownership checks. Ownership is read fresh on every call: an unlinked or revoked inbox
/// stops being the owner's at once.
public protocol OwnedInboxes: Sendable {
    /// The live inboxes `ownerID` holds, oldest link first.
    /// - Throws: storage errors.
    func inboxes(ownerID: String) async throws -> [OwnedInbox]

    /// The live inbox `accountID` when `ownerID` holds it; nil when it is not live or held by someone else (or
    /// nobody).
    /// - Throws: storage errors.
    func inbox(accountID: String, ownerID: String) async throws -> OwnedInbox?

    /// The live inboxes among `accountIDs`, whoever holds them (the inboxes an operator bound a confidential client
    /// to), in the order given; an id of no live inbox is left out. `linkedAt` is the owner's link when one holds it,
    /// else the inbox's creation.
    /// - Throws: storage errors.
    func inboxes(accountIDs: [String]) async throws -> [OwnedInbox]

    /// Creates an agent inbox `username@domain` held by `ownerID`, on the agent domain when `domain` is nil, else on
    /// that custom domain (which the caller has checked is the owner's and verified); its API key is in the answer,
    /// shown once.
    /// - Throws: ``OwnedInboxError`` for a bad or taken name; storage errors.
    func createInbox(username: String, domain: String?, ownerID: String) async throws -> (inbox: OwnedInbox, apiKey: String)

    /// Links the live inbox whose API key is `apiKey` to `ownerID` (proof of possession).
    /// - Throws: ``OwnedInboxError/unknownKey`` when no live inbox has that key, ``OwnedInboxError/heldByAnother``
    ///   when another owner holds it; storage errors.
    func link(apiKey: String, ownerID: String) async throws -> OwnedInbox

    /// A new API key for inbox `accountID` held by `ownerID`; the old key stops working at once. Nil when the owner
    /// does not hold that live inbox.
    /// - Throws: storage errors.
    func rotateKey(accountID: String, ownerID: String) async throws -> String?

    /// Ends `ownerID`'s hold on inbox `accountID`: the inbox stays, nobody's, its API key unchanged. Nil when the
    /// owner does not hold that live inbox.
    /// - Throws: storage errors.
    func unlink(accountID: String, ownerID: String) async throws -> OwnedInbox?

    /// Deletes inbox `accountID` held by `ownerID`: its account, key and sessions, and its mail with its change log,
    /// in one transaction; its name becomes free. Nil when the owner does not hold that live inbox.
    /// - Throws: storage errors.
    func delete(accountID: String, ownerID: String) async throws -> OwnedInbox?
}

extension OwnedInboxes {
    /// The live inboxes `grant` reaches, oldest link first: an owner's grant, the owner's; a client's own grant, the
    /// inboxes its client is bound to (of an owner's agent client, those the owner still holds); then only the bound
    /// one of an inbox-bound token or grant, and of a token minted for acting agent clients only those they were bound
    /// to. The one rule every door that lists a grant's inboxes asks.
    /// - Throws: storage errors.
    public func inboxes(reachedBy grant: AccessGrant) async throws -> [OwnedInbox] {
        let reached: [OwnedInbox]
        switch (grant.clientInboxIDs, grant.clientOwnerID) {
        case (nil, _): reached = try await inboxes(ownerID: grant.ownerID)
        case (let bound?, nil): reached = try await inboxes(accountIDs: bound)
        case (let bound?, let owner?): reached = try await inboxes(ownerID: owner).filter { bound.contains($0.accountID) }
        }
        return reached.filter { inbox in
            grant.boundInboxID.map { $0 == inbox.accountID } ?? true && grant.actorsReach(inbox.accountID)
        }
    }

    /// The live inbox `accountID` (lowercase) when `grant` reaches it (``inboxes(reachedBy:)``'s rule, for one).
    /// - Throws: storage errors.
    public func inbox(accountID: String, reachedBy grant: AccessGrant) async throws -> OwnedInbox? {
        if let only = grant.boundInboxID, only != accountID { return nil }
        guard grant.actorsReach(accountID) else { return nil }
        switch (grant.clientInboxIDs, grant.clientOwnerID) {
        case (nil, _): return try await inbox(accountID: accountID, ownerID: grant.ownerID)
        case (let bound?, _) where !bound.contains(accountID): return nil
        case (_, let owner?): return try await inbox(accountID: accountID, ownerID: owner)
        case (_, nil): return try await inboxes(accountIDs: [accountID]).first
        }
    }

    /// Creates an agent inbox named `username` on the agent domain (``createInbox(username:domain:ownerID:)``).
    public func createInbox(username: String, ownerID: String) async throws -> (inbox: OwnedInbox, apiKey: String) {
        try await createInbox(username: username, domain: nil, ownerID: ownerID)
    }
}

/// An inbox as its owner sees it (the `/api/v1/agents` entry).
public struct OwnedInbox: Sendable, Equatable {
    /// The agent account's id (lowercase UUID), the OAuth path's `X-Atomic-Account-Id`.
    public let accountID: String
    /// The username: the local part of ``address`` on the agent domain, the whole address on a custom domain.
    public let username: String
    /// The inbox address.
    public let address: String
    /// When the owner linked or created it, Unix seconds.
    public let linkedAt: Int64
    /// When the inbox became usable (its agent account's creation), Unix seconds.
    public let activatedAt: Int64

    public init(accountID: String, username: String, address: String, linkedAt: Int64, activatedAt: Int64) {
        self.accountID = accountID
        self.username = username
        self.address = address
        self.linkedAt = linkedAt
        self.activatedAt = activatedAt
    }
}

/// Why an owner could not create or link an inbox.
public enum OwnedInboxError: Error, Equatable, Sendable {
    /// The username breaks the agent username rules (5 to 21 of a-z 0-9 . _ -).
    case invalidUsername
    /// The username is reserved.
    case reservedUsername
    /// Another agent already has that username.
    case usernameTaken
    /// No live inbox has that API key.
    case unknownKey
    /// Another owner holds that inbox.
    case heldByAnother
    /// The owner holds the most inboxes one owner may (``limit``): nothing was made or linked.
    case limitReached(limit: Int)
}
