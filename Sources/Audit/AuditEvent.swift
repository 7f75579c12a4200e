/// Who did an audited thing.
public enum AuditActorKind: String, Sendable, CaseIterable {
    /// A person signed in at `/owner`.
    case owner
    /// A Mail.td Pro account (its API token).
    case pro
    /// The operator, at the command line.
    case `operator`
    /// An OAuth app acting for an owner.
    case app
    /// The server itself (a timer).
    case system
    /// A mailbox's holder with its own credential (a Mail.td account's address and password, at IMAP).
    case mailbox
}

/// One line of the audit trail: who did what to which thing, when and from where. Never holds a secret: no password,
/// API key or token (an API token's id is fine).
public struct AuditEvent: Sendable, Equatable {
    /// When, Unix seconds.
    public var time: Int64
    /// Who acted.
    public var actorKind: AuditActorKind
    /// The actor's id (an owner id, a Pro account id, `operator`, a client id); for a refused sign-in the email typed.
    public var actorID: String
    /// The owner the event belongs to, shown on their `/owner` page; nil for Pro and operator-only events.
    public var ownerID: String?
    /// What was done.
    public var action: AuditAction
    /// What it was done to: an account id, an address, a domain, a grant or token id, a command name.
    public var target: String
    /// The client's address (nil at the command line).
    public var clientAddress: String?
    /// A small JSON object of further facts (never a secret), or nil.
    public var details: String?

    /// - Parameters: see the properties.
    public init(
        time: Int64, actorKind: AuditActorKind, actorID: String, ownerID: String?, action: AuditAction,
        target: String, clientAddress: String? = nil, details: String? = nil
    ) {
        self.time = time
        self.actorKind = actorKind
        self.actorID = actorID
        self.ownerID = ownerID
        self.action = action
        self.target = target
        self.clientAddress = clientAddress
        self.details = details
    }

    /// An owner's own action, on their own trail.
    public static func owner(
        _ ownerID: String, _ action: AuditAction, target: String, client: String? = nil, details: String? = nil,
        time: Int64
    ) -> AuditEvent {
        AuditEvent(
            time: time, actorKind: .owner, actorID: ownerID, ownerID: ownerID, action: action, target: target,
            clientAddress: client, details: details)
    }

    /// An agent client's act for an owner with a delegated token (token exchange, RFC 8693): the current actor is the
    /// event's actor (kind ``AuditActorKind/app``), the owner's trail holds it, and the details say who acted for whom:
    /// `act`, the acting clients' ids separated by spaces with the current one first, after `details`.
    /// - Parameters:
    ///   - ownerID: the owner acted for (the token's `sub`).
    ///   - actorIDs: the acting clients, the current one first; never empty.
    public static func acting(
        for ownerID: String, actorIDs: [String], _ action: AuditAction, target: String, client: String?,
        details: [(String, String)] = [], time: Int64
    ) -> AuditEvent {
        AuditEvent(
            time: time, actorKind: .app, actorID: actorIDs.first ?? "", ownerID: ownerID, action: action,
            target: target, clientAddress: client,
            details: AuditDetails.json(details + [("act", actorIDs.joined(separator: " "))]))
    }
}
