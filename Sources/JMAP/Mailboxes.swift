import MailStore

/// An account's mailboxes as JMAP shows them (RFC 8621 §2): the store's folders (decision 35), the six fixed ones
/// with their roles first, then the account's own by path.
struct Mailboxes {
    struct Entry {
        let id: String
        let name: String
        let parentID: String?
        let role: String?
        let sortOrder: Int
        let isSubscribed: Bool
        let isFixed: Bool
    }

    /// What a mailbox the account made sorts as until a client sets its `sortOrder`: after the six fixed ones (1 to 6).
    static let madeSortOrder = MailFolderEntry.defaultSortOrder

    let tree: MailFolderTree
    let all: [Entry]

    init(tree: MailFolderTree, subscriptions: Set<String>) {
        self.tree = tree
        all = tree.entries.enumerated().map { index, entry in
            Entry(
                id: entry.folder.rawValue, name: entry.name, parentID: entry.parent?.rawValue,
                role: entry.folder.role?.rawValue, sortOrder: entry.folder.isFixed ? index + 1 : entry.sortOrder,
                isSubscribed: entry.folder.isFixed || tree.fullName(of: entry.folder).map(subscriptions.contains) == true,
                isFixed: entry.folder.isFixed)
        }
    }

    /// The mailbox `id` names; nil when the account has none.
    func folder(_ id: String) -> MailFolder? {
        MailFolder(rawValue: id).flatMap { tree.entry($0)?.folder }
    }
}
