import Directory

/// The account a request's principal opens: its id (the JMAP accountId) and its mailbox's address.
public struct JMAPAccount: Sendable, Equatable {
    public let id: String
    public let address: String
    /// Bytes its mail may take.
    public let quota: Int64
    public let name: String

    public init(id: String, address: String, quota: Int64) {
        self.id = id
        self.address = address
        self.quota = quota
        self.name = String(address.split(separator: "@").first ?? "")
    }

    /// The account `principal` opens.
    init(_ principal: Principal) {
        self.init(id: principal.accountID, address: principal.mailbox.address, quota: principal.mailbox.quota)
    }
}

/// The capabilities this server has (RFC 8620, 8621, 9404).
enum Capability {
    static let core = "urn:ietf:params:jmap:core"
    static let mail = "urn:ietf:params:jmap:mail"
    static let submission = "urn:ietf:params:jmap:submission"
    static let blob = "urn:ietf:params:jmap:blob"
    static let all: Set<String> = [core, mail, submission, blob]
}

/// The three mailboxes every account has; a message is in exactly one of them.
enum Mailboxes {
    struct Entry {
        let id: String
        let name: String
        let role: String
        let sortOrder: Int
    }

    static let all = [
        Entry(id: "inbox", name: "Inbox", role: "inbox", sortOrder: 1),
        Entry(id: "drafts", name: "Drafts", role: "drafts", sortOrder: 2),
        Entry(id: "sent", name: "Sent", role: "sent", sortOrder: 3),
    ]
}
