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
