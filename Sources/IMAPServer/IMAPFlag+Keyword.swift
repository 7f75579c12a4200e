import IMAP

/// Flags are JMAP keywords (RFC 8621 §4.1.1): the system flags are `$seen`, `$flagged`, `$answered`, `$draft` and
/// (IMAP's alone) `$deleted`; another keyword is itself, lower-cased as JMAP keeps keywords. `\Recent` is never kept.
extension IMAPFlag {
    /// The keyword this flag is stored as; nil for `\Recent` and other backslash flags, which are not kept.
    var keyword: String? {
        switch self {
        case .seen: return "$seen"
        case .flagged: return "$flagged"
        case .answered: return "$answered"
        case .draft: return "$draft"
        case .deleted: return "$deleted"
        case .recent, .extension: return nil
        case .keyword(let name): return name.lowercased()
        }
    }

    /// The flag a stored keyword is shown as.
    init(keyword: String) {
        switch keyword {
        case "$seen": self = .seen
        case "$flagged": self = .flagged
        case "$answered": self = .answered
        case "$draft": self = .draft
        case "$deleted": self = .deleted
        default: self = .keyword(keyword)
        }
    }

    /// The flags of a message with `keywords`, system flags first, then keywords in name order.
    static func flags(_ keywords: Set<String>) -> [IMAPFlag] {
        keywords.sorted { ($0.hasPrefix("$") ? 0 : 1, $0) < ($1.hasPrefix("$") ? 0 : 1, $1) }.map(IMAPFlag.init(keyword:))
    }

    /// The flags every mailbox offers (`FLAGS`, `PERMANENTFLAGS`, with `\*` for any keyword).
    static let systemFlags: [IMAPFlag] = [.answered, .flagged, .deleted, .seen, .draft]
}
