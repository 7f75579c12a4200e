import IMAP
import MailStore

/// The mailboxes IMAP shows: the folders JMAP and the Mail.td API see, under the names and special-use attributes
/// (RFC 6154) clients expect. The name space is flat (no hierarchy delimiter); no other mailbox can be made.
enum IMAPMailboxNames {
    /// Every mailbox, in LIST order.
    static let all: [(name: String, folder: MailFolder, attributes: [String])] = [
        ("INBOX", .inbox, []),
        ("Drafts", .drafts, ["\\Drafts"]),
        ("Sent", .sent, ["\\Sent"]),
    ]

    /// The folder `name` names (`INBOX` in any case, the others as listed, case-sensitive as RFC 9051 asks); nil
    /// for any other name.
    static func folder(_ name: IMAPMailboxName) -> MailFolder? {
        all.first { $0.name == name.name }?.folder
    }

    /// The listed mailboxes whose names match `pattern` after `reference` (`*` and `%` wildcards; with a flat name
    /// space they mean the same).
    static func matching(reference: String, pattern: String) -> [(name: String, folder: MailFolder, attributes: [String])] {
        let full = Array((reference + pattern).utf8)
        return all.filter { entry in
            let name = Array(entry.name.utf8)
            return entry.name == "INBOX" && full.count == 5 && String(decoding: full, as: UTF8.self).uppercased() == "INBOX"
                || matches(full[...], name[...])
        }
    }

    private static func matches(_ pattern: ArraySlice<UInt8>, _ name: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return name.isEmpty }
        if first == UInt8(ascii: "*") || first == UInt8(ascii: "%") {
            let rest = pattern.dropFirst()
            var index = name.startIndex
            while true {
                if matches(rest, name[index...]) { return true }
                if index == name.endIndex { return false }
                index += 1
            }
        }
        guard let head = name.first, head == first else { return false }
        return matches(pattern.dropFirst(), name.dropFirst())
    }
}
