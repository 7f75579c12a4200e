/// Who a web-inbox session is. What it may read is asked again on every request (``WebInboxService``), so an account
/// deleted or a Pro user suspended reads nothing more.
public enum WebInboxPrincipal: Sendable, Equatable {
    /// A Mail.td account, by id: its one mailbox while it exists.
    case account(id: String)
    /// A Mail.td Pro user, by id: every account the user holds while active.
    case proUser(id: String)
    /// A one-time link's mailbox.
    case link(address: String)
    /// A one-time link of `postern web link --all`: every mailbox that holds mail, read-only (no send, no delete, no
    /// change of read state).
    case allMail

    /// What the links table stores as the address of an ``allMail`` link, and the sessions table as its subject: no
    /// mailbox can have it (no `@`).
    static let allMailLinkAddress = "*"

    /// The `kind` column.
    var kind: String {
        switch self {
        case .account: "account"
        case .proUser: "pro"
        // The table's kinds are fixed (a CHECK): the operator's view is a link whose subject no mailbox can be.
        case .link, .allMail: "link"
        }
    }

    /// The `subject` column.
    var subject: String {
        switch self {
        case .account(let id), .proUser(let id): id
        case .link(let address): address
        case .allMail: Self.allMailLinkAddress
        }
    }

    init?(kind: String, subject: String) {
        switch kind {
        case "account": self = .account(id: subject)
        case "pro": self = .proUser(id: subject)
        case "link": self = Self(linkAddress: subject)
        default: return nil
        }
    }

    /// Who a one-time link opens, by the address the links table stores for it: ``allMail`` for
    /// ``allMailLinkAddress``, else that address's mailbox.
    init(linkAddress address: String) {
        self = address == Self.allMailLinkAddress ? .allMail : .link(address: address)
    }
}
