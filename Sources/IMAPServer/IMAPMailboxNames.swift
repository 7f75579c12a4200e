import IMAP
import MailStore

/// An address's folders as IMAP names them (decision 35): full paths joined by `/`, the inbox as `INBOX`, the six
/// fixed folders with RFC 6154's special-use attributes; and the answers of `LIST` (RFC 5258's extended form, RFC
/// 6154's `SPECIAL-USE`) and `LSUB` over them and the subscriptions. Pure: made from the store's tree and
/// subscriptions, read once per command.
struct IMAPMailboxNames {
    let tree: MailFolderTree
    /// The full names subscribed to, besides the six fixed folders (always subscribed).
    let subscriptions: Set<String>

    static let delimiter = MailFolderTree.delimiter

    /// One mailbox a `LIST` answers, with the folder behind it (nil for a name that is only subscribed).
    struct Listed {
        var item: IMAPListItem
        var folder: MailFolder?
    }

    /// The folder `name` names; nil when there is none.
    func folder(_ name: IMAPMailboxName) -> MailFolder? {
        MailFolderTree.components(name.name).flatMap(tree.folder(at:))
    }

    /// RFC 6154's attribute of `folder`'s role, if it has one.
    static func specialUse(_ folder: MailFolder) -> [String] {
        switch folder.role {
        case .drafts?: return ["\\Drafts"]
        case .sent?: return ["\\Sent"]
        case .trash?: return ["\\Trash"]
        case .junk?: return ["\\Junk"]
        case .archive?: return ["\\Archive"]
        case .inbox?, nil: return []
        }
    }

    /// Whether `name` (a full name) is subscribed.
    func isSubscribed(_ name: String) -> Bool {
        subscriptions.contains(name) || tree.folder(at: name.split(separator: Self.delimiter).map(String.init))?.isFixed == true
    }

    /// Every subscribed name, the six fixed folders' first.
    var subscribed: [String] {
        MailFolder.fixed.compactMap(tree.fullName(of:)) + subscriptions.sorted().filter { !isFixedName($0) }
    }

    private func isFixedName(_ name: String) -> Bool {
        MailFolder.fixed.contains { tree.fullName(of: $0) == name }
    }

    /// The answer to `LIST`: the folders (or, with `SUBSCRIBED`, the subscribed names) matching any pattern after
    /// the reference, each with `\HasChildren` or `\HasNoChildren`, its special-use attribute, `\Subscribed` when
    /// asked for, and with `RECURSIVEMATCH` the names whose subscribed descendants match no pattern (`CHILDINFO`).
    func list(_ command: IMAPListCommand) -> [Listed] {
        let patterns = command.patterns.map { Self.canonical(command.reference + $0) }
        let matches = { (name: String) in patterns.contains { Self.matches(pattern: $0, name: name) } }
        let options = Set(command.selectionOptions)
        let specialUseOnly = options.contains("SPECIAL-USE")
        let showSubscribed = options.contains("SUBSCRIBED") || command.returnOptions.contains(.subscribed)
        var listed: [Listed] = []
        guard options.contains("SUBSCRIBED") else {
            for entry in tree.entries {
                guard let name = tree.fullName(of: entry.folder), matches(name),
                    !specialUseOnly || !Self.specialUse(entry.folder).isEmpty
                else { continue }
                var attributes = [tree.children(of: entry.folder).isEmpty ? "\\HasNoChildren" : "\\HasChildren"]
                attributes += Self.specialUse(entry.folder)
                if showSubscribed && isSubscribed(name) { attributes.append("\\Subscribed") }
                listed.append(Listed(item: item(attributes, name), folder: entry.folder))
            }
            return listed
        }
        let recursive = options.contains("RECURSIVEMATCH")
        let subscribed = self.subscribed
        var candidates = subscribed
        if recursive {
            for name in subscribed {
                for ancestor in Self.ancestors(name) where !candidates.contains(ancestor) { candidates.append(ancestor) }
            }
        }
        for name in candidates where matches(name) {
            let own = isSubscribed(name)
            let childInfo =
                recursive
                && subscribed.contains { $0.hasPrefix(name + String(Self.delimiter)) && !matches($0) }
            guard own || childInfo else { continue }
            let folder = tree.folder(at: name.split(separator: Self.delimiter).map(String.init))
            guard !specialUseOnly || folder.map({ !Self.specialUse($0).isEmpty }) == true else { continue }
            var attributes: [String]
            if let folder {
                attributes = [tree.children(of: folder).isEmpty ? "\\HasNoChildren" : "\\HasChildren"]
                attributes += Self.specialUse(folder)
            } else {
                attributes = ["\\NonExistent"]
            }
            if own { attributes.append("\\Subscribed") }
            var entry = item(attributes, name)
            if childInfo { entry.childInfo = ["SUBSCRIBED"] }
            listed.append(Listed(item: entry, folder: folder))
        }
        return listed
    }

    /// The answer to `LSUB` (RFC 3501 §6.3.9): the subscribed names matching; with `%`, an unsubscribed name above a
    /// subscribed one that `%` stops at is listed `\Noselect`.
    func lsub(reference: String, pattern: String) -> [IMAPListItem] {
        let pattern = Self.canonical(reference + pattern)
        var items: [IMAPListItem] = []
        var seen: Set<String> = []
        let subscribed = self.subscribed
        for name in subscribed where Self.matches(pattern: pattern, name: name) && seen.insert(name).inserted {
            items.append(item([], name))
        }
        if pattern.contains("%") {
            for name in subscribed {
                for ancestor in Self.ancestors(name)
                where !isSubscribed(ancestor) && Self.matches(pattern: pattern, name: ancestor)
                    && seen.insert(ancestor).inserted
                {
                    items.append(item(["\\Noselect"], ancestor))
                }
            }
        }
        return items
    }

    private func item(_ attributes: [String], _ name: String) -> IMAPListItem {
        IMAPListItem(attributes: attributes, delimiter: Self.delimiter, name: IMAPMailboxName(name))
    }

    /// The names above `name`, nearest last (`a/b/c`: `a`, `a/b`).
    static func ancestors(_ name: String) -> [String] {
        let parts = name.split(separator: delimiter, omittingEmptySubsequences: false)
        return (1..<Swift.max(1, parts.count)).map { parts[..<$0].joined(separator: String(delimiter)) }
    }

    /// `pattern` with a leading `INBOX` in any case (alone or before the delimiter) made `INBOX`, as names are.
    static func canonical(_ pattern: String) -> String {
        let head = pattern.prefix(5)
        guard head.uppercased() == "INBOX", pattern.count == 5 || pattern.dropFirst(5).first == delimiter else {
            return pattern
        }
        return "INBOX" + pattern.dropFirst(5)
    }

    /// Whether `name` matches `pattern`: `*` matches anything, `%` anything but the delimiter (RFC 9051 §6.3.9).
    /// In time proportional to the pattern's length times the name's, whatever the wildcards.
    static func matches(pattern: String, name: String) -> Bool {
        let name = Array(name.utf8)
        let slash = UInt8(ascii: "/")
        // reachable[j]: the pattern read so far matches the first j bytes of the name.
        var reachable = [Bool](repeating: false, count: name.count + 1)
        reachable[0] = true
        for byte in pattern.utf8 {
            var next = [Bool](repeating: false, count: name.count + 1)
            if byte == UInt8(ascii: "*") || byte == UInt8(ascii: "%") {
                var reach = false
                for j in 0...name.count {
                    if reachable[j] { reach = true }
                    next[j] = reach
                    if j < name.count && byte == UInt8(ascii: "%") && name[j] == slash { reach = false }
                }
            } else {
                for j in 0..<name.count where reachable[j] && name[j] == byte { next[j + 1] = true }
            }
            reachable = next
        }
        return reachable[name.count]
    }
}
