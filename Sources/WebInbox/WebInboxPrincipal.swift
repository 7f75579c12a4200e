/// Who a web-inbox session is. What it may read is asked again on every request (``WebInboxService``), so an account
/// deleted or a Pro user suspended reads nothing more.
public enum WebInboxPrincipal: Sendable, Equatable {
    /// A Mail.td account, by id: its one mailbox while it exists.
    case account(id: String)
    /// A Mail.td Pro user, by id: every account the user holds while active.
    case proUser(id: String)
    /// A one-time link's mailbox.
    case link(address: String)

    /// The `kind` column.
    var kind: String {
        switch self {
        case .account: "account"
        case .proUser: "pro"
        case .link: "link"
        }
    }

    /// The `subject` column.
    var subject: String {
        switch self {
        case .account(let id), .proUser(let id): id
        case .link(let address): address
        }
    }

    init?(kind: String, subject: String) {
        switch kind {
        case "account": self = .account(id: subject)
        case "pro": self = .proUser(id: subject)
        case "link": self = .link(address: subject)
        default: return nil
        }
    }
}
