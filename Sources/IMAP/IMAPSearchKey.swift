/// One search criterion (RFC 3501 §6.4.4, RFC 9051 §6.4.4): keys side by side in a command are ANDed; `OR`, `NOT`
/// and parentheses combine them. Strings are matched as substrings, case-insensitively, by whoever runs the search.
public indirect enum IMAPSearchKey: Sendable, Equatable {
    case all
    /// Every key, ANDed: a parenthesized list, or the keys of the command itself.
    case and([IMAPSearchKey])
    case or(IMAPSearchKey, IMAPSearchKey)
    case not(IMAPSearchKey)
    /// Messages with (`true`) or without a flag: `ANSWERED`/`UNANSWERED`, `KEYWORD x`/`UNKEYWORD x`, ...
    case flag(IMAPFlag, set: Bool)
    /// `NEW` (recent and unseen), `OLD` (not recent), `RECENT` (IMAP4rev1).
    case new, old, recent
    /// A header field containing the string: `SUBJECT` names its own; `HEADER` any, matched in the value as written.
    case header(field: String, contains: String)
    /// An address field (`FROM`, `TO`, `CC`, `BCC`) containing the string in its addresses as read, not as written:
    /// `Name <local@host>` for each, groups as `name: ...;`, comments gone (a trailing one being a display name).
    case address(field: String, contains: String)
    /// The body, or the whole message (`TEXT`), containing the string.
    case body(String)
    case text(String)
    /// The internal date: `BEFORE`, `ON`, `SINCE`.
    case internalDate(IMAPDateComparison, IMAPDate)
    /// The `Date:` header's date: `SENTBEFORE`, `SENTON`, `SENTSINCE`.
    case sentDate(IMAPDateComparison, IMAPDate)
    /// `LARGER n`, `SMALLER n` (RFC822.SIZE).
    case larger(UInt64)
    case smaller(UInt64)
    /// `UID set`.
    case uid(IMAPSequenceSet)
    /// A sequence set of message numbers.
    case sequence(IMAPSequenceSet)
}

extension IMAPSearchKey {
    /// The length in bytes (UTF-8) of the longest string any key in the tree matches, 0 when none does: what
    /// ``IMAPLimits/maxSearchStringBytes`` bounds before a search runs.
    public var longestStringBytes: Int {
        switch self {
        case .and(let keys): keys.map(\.longestStringBytes).max() ?? 0
        case .or(let a, let b): max(a.longestStringBytes, b.longestStringBytes)
        case .not(let key): key.longestStringBytes
        case .header(_, let text), .address(_, let text), .body(let text), .text(let text): text.utf8.count
        case .all, .flag, .new, .old, .recent, .internalDate, .sentDate, .larger, .smaller, .uid, .sequence: 0
        }
    }
}

/// How a search date is compared with a message's.
public enum IMAPDateComparison: Sendable, Equatable {
    case before, on, since
}

/// A `SEARCH` command's arguments: the charset, the ESEARCH return options (RFC 4731, RFC 9051) and the criteria.
public struct IMAPSearchCommand: Sendable, Equatable {
    /// `CHARSET x`, when given (the driver answers `NO [BADCHARSET]` for one it does not know).
    public var charset: String?
    /// `RETURN (...)`; nil for a plain `SEARCH`, whose answer is `* SEARCH`. An empty list means `ALL`.
    public var returnOptions: [IMAPSearchReturnOption]?
    /// The criteria, ANDed.
    public var key: IMAPSearchKey

    public init(charset: String? = nil, returnOptions: [IMAPSearchReturnOption]? = nil, key: IMAPSearchKey) {
        self.charset = charset
        self.returnOptions = returnOptions
        self.key = key
    }
}

/// What an ESEARCH answer carries (RFC 4731 §3.1) and `SAVE` (RFC 5182).
public enum IMAPSearchReturnOption: String, Sendable, Equatable {
    case min = "MIN"
    case max = "MAX"
    case all = "ALL"
    case count = "COUNT"
    case save = "SAVE"
}
