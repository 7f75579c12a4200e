/// Who holds a custom-domain claim: an owner (agent inboxes on it, `/owner/domains`) or a Mail.td Pro user (accounts
/// and a catch-all on it, `/api/user/domains`). One table holds both, so one domain has at most one verified holder
/// whichever surface proved it.
public enum DomainHolder: Sendable, Hashable {
    /// An owner, by `owners.id`.
    case owner(String)
    /// A Mail.td Pro user, by `mailbox_pro_users.id`.
    case proUser(String)

    /// The two kinds of holder, for ports that answer for one surface (``CustomDomainMailboxes``).
    public enum Kind: Sendable, Hashable {
        case owner, proUser
    }

    /// Which kind of holder this is.
    public var kind: Kind {
        switch self {
        case .owner: .owner
        case .proUser: .proUser
        }
    }

    /// The holder's id within its kind.
    public var id: String {
        switch self {
        case .owner(let id), .proUser(let id): id
        }
    }
}
