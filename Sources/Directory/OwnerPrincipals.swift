import EmailAddresses

/// The inboxes an owner's grant reaches, as principals: ownership read fresh (``OwnedInboxes``) on every call, the
/// mailbox resolved in the directory, the grant's scopes as the principal's permissions. A client's own grant
/// (``AccessGrant/clientInboxIDs``) reaches the live inboxes it was bound to instead of an owner's. Shared by JMAP's
/// `X-Atomic-Account-Id` path and MCP's `agent_id` selection.
public struct OwnerPrincipals: Sendable {
    let inboxes: any OwnedInboxes
    let directory: any AccountDirectory

    /// - Parameters:
    ///   - inboxes: who holds which agent inbox.
    ///   - directory: where an inbox must be a local mailbox.
    public init(inboxes: any OwnedInboxes, directory: any AccountDirectory) {
        self.inboxes = inboxes
        self.directory = directory
    }

    /// The live inboxes `grant`'s owner holds (only the bound one for an inbox-bound token or grant), oldest link
    /// first.
    /// - Throws: storage errors.
    public func inboxes(of grant: AccessGrant) async throws -> [OwnedInbox] {
        try await inboxes.inboxes(reachedBy: grant)
    }

    /// What choosing an inbox for a grant came to.
    public enum Choice: Sendable, Equatable {
        /// The inbox to act on.
        case inbox(Principal)
        /// None was named and there is no default: the owner's inboxes to choose from (maybe none).
        case choose([OwnedInbox])
    }

    /// The principal of inbox `accountID` (its id, any case) for `grant`.
    /// - Throws: ``AuthenticationRefusal`` `.accessDenied` when the owner does not hold that live inbox, or the
    ///   token or its grant is bound to another inbox; storage errors.
    public func principal(_ grant: AccessGrant, accountID: String) async throws -> Principal {
        let accountID = accountID.lowercased()
        if let bound = grant.boundInboxID, bound != accountID {
            throw AuthenticationRefusal(.accessDenied, "This access token is bound to another inbox.")
        }
        guard let inbox = try await inboxes.inbox(accountID: accountID, reachedBy: grant) else {
            throw AuthenticationRefusal(.accessDenied, "The inbox \(accountID) is not one the grant's owner holds.")
        }
        return try await principal(grant, inbox)
    }

    /// The inbox `agent` names (an accountId or an address, any case), else the grant's default inbox while the
    /// owner still holds it, else the owner's only inbox; otherwise the inboxes to choose from.
    /// - Throws: ``AuthenticationRefusal`` `.accessDenied` when `agent` names no inbox the owner holds; storage errors.
    public func choose(_ grant: AccessGrant, agent: String?) async throws -> Choice {
        if let bound = grant.boundInboxID, agent == nil {
            return .inbox(try await principal(grant, accountID: bound))
        }
        let held = try await inboxes(of: grant)
        if let agent {
            let wantedID = ASCIICase.lowered(agent)
            guard
                let inbox = held.first(where: { $0.accountID == wantedID || EmailAddress.same($0.address, agent) })
            else {
                throw AuthenticationRefusal(
                    .accessDenied, "agent_id \(agent) is not an inbox the signed-in owner holds; call list_agents.")
            }
            return .inbox(try await principal(grant, accountID: inbox.accountID))
        }
        if let inbox = Self.defaultInbox(of: grant, among: held) { return .inbox(try await principal(grant, inbox)) }
        return .choose(held)
    }

    /// The inbox a call without `agent_id` acts on: the grant's default inbox when the owner still holds it, else
    /// the only inbox held; nil when there are several and none is the default.
    public static func defaultInbox(of grant: AccessGrant, among held: [OwnedInbox]) -> OwnedInbox? {
        if let preferred = grant.defaultInboxID, let inbox = held.first(where: { $0.accountID == preferred }) {
            return inbox
        }
        return held.count == 1 ? held[0] : nil
    }

    /// The principal of the live inbox at `address` (any case) that `ownerID` holds, with every permission: the owner
    /// acting as their own inbox from their owner session (the web inbox's compose), not through a grant. Nil when the
    /// owner does not hold that live inbox now, or it is no longer served here.
    /// - Throws: storage errors.
    public func principal(ownerID: String, address: String) async throws -> Principal? {
        let held = try await inboxes.inboxes(ownerID: ownerID)
        guard let inbox = held.first(where: { EmailAddress.same($0.address, address) }),
            case .local(let mailbox) = try await directory.resolve(inbox.address)
        else { return nil }
        return Principal(accountID: inbox.accountID, mailbox: mailbox)
    }

    private func principal(_ grant: AccessGrant, _ inbox: OwnedInbox) async throws -> Principal {
        guard case .local(let mailbox) = try await directory.resolve(inbox.address) else {
            throw AuthenticationRefusal(.accessDenied, "The inbox \(inbox.accountID) is no longer served here.")
        }
        return Principal(
            accountID: inbox.accountID, mailbox: mailbox, permissions: grant.permissions, impliesAccountID: true,
            delegation: grant.delegation)
    }
}
