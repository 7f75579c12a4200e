import SASL

/// One server response (RFC 9051 §7), typed; ``IMAPResponseEncoder`` writes it.
public enum IMAPResponse: Sendable, Equatable {
    /// `* ...`: data, or an untagged status.
    case untagged(IMAPUntaggedResponse)
    /// `tag OK|NO|BAD [code] text`: the command's completion.
    case tagged(tag: String, IMAPStatusResponse)
    /// `+ text` or `+ base64`: the server waits for the client's next line.
    case continuation(IMAPContinuation)
}

/// What follows `+`.
public enum IMAPContinuation: Sendable, Equatable {
    /// Text for a human (a literal's go-ahead, IDLE's `+ idling`).
    case text(String)
    /// A SASL challenge.
    case challenge(SASLMessage)
}

/// `OK`, `NO`, `BAD`, `PREAUTH` or `BYE`, with an optional response code and a text (RFC 9051 §7.1).
public struct IMAPStatusResponse: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case ok = "OK"
        case no = "NO"
        case bad = "BAD"
        case preauth = "PREAUTH"
        case bye = "BYE"
    }

    public var kind: Kind
    public var code: IMAPResponseCode?
    /// Text for a human; never the client's input, never an internal error's.
    public var text: String

    public init(_ kind: Kind, code: IMAPResponseCode? = nil, _ text: String) {
        self.kind = kind
        self.code = code
        self.text = text
    }
}

/// Untagged data (RFC 9051 §7.2–§7.5).
public enum IMAPUntaggedResponse: Sendable, Equatable {
    /// `OK`, `NO`, `BAD`, `PREAUTH` or `BYE`, untagged.
    case condition(IMAPStatusResponse)
    case capability([String])
    /// `ID` (RFC 2971): the server's field-value pairs.
    case id([IMAPIDField])
    case enabled([String])
    case flags([IMAPFlag])
    case exists(UInt32)
    /// `RECENT` (IMAP4rev1 only).
    case recent(UInt32)
    case expunge(UInt32)
    case list(IMAPListItem)
    case lsub(IMAPListItem)
    /// `STATUS mailbox (item value ...)`.
    case mailboxStatus(IMAPMailboxName, [IMAPStatusValue])
    /// `SEARCH n ...` (IMAP4rev1's answer to a search without `RETURN`).
    case search([UInt32])
    /// `SORT n ...` (RFC 5256 §4).
    case sort([UInt32])
    /// `THREAD (...)(...)` (RFC 5256 §4): each thread's root and its replies.
    case thread([IMAPThreadNode])
    case esearch(IMAPESearchResult)
    /// `n FETCH (...)`.
    case fetch(UInt32, [IMAPFetchItem])
    /// `NAMESPACE`: personal, other users' and shared namespaces, each nil when there is none.
    case namespace(personal: [IMAPNamespace]?, otherUsers: [IMAPNamespace]?, shared: [IMAPNamespace]?)
}

/// One field-value pair of an `ID` response (RFC 2971 §3.3: `name`, `version`, ...).
public struct IMAPIDField: Sendable, Equatable {
    public var field: String
    public var value: String

    public init(_ field: String, _ value: String) {
        self.field = field
        self.value = value
    }
}

/// One `LIST` (or `LSUB`) line: attributes (`\HasNoChildren`, `\Sent`), the hierarchy delimiter and the name.
public struct IMAPListItem: Sendable, Equatable {
    /// Attributes as written, backslash included.
    public var attributes: [String]
    /// The hierarchy delimiter; nil for a flat name space (`NIL`).
    public var delimiter: Character?
    public var name: IMAPMailboxName
    /// RFC 5258's `CHILDINFO` extended data item: the selection options (`SUBSCRIBED`) some descendant not listed
    /// meets; empty: none written.
    public var childInfo: [String]

    public init(attributes: [String], delimiter: Character?, name: IMAPMailboxName, childInfo: [String] = []) {
        self.attributes = attributes
        self.delimiter = delimiter
        self.name = name
        self.childInfo = childInfo
    }
}

/// One item of a `STATUS` response.
public struct IMAPStatusValue: Sendable, Equatable {
    public var item: IMAPStatusItem
    public var value: UInt64

    public init(_ item: IMAPStatusItem, _ value: UInt64) {
        self.item = item
        self.value = value
    }
}

/// One namespace of a `NAMESPACE` response: its prefix and hierarchy delimiter.
public struct IMAPNamespace: Sendable, Equatable {
    public var prefix: String
    public var delimiter: Character?

    public init(prefix: String, delimiter: Character?) {
        self.prefix = prefix
        self.delimiter = delimiter
    }
}

/// An `ESEARCH` response (RFC 4731, RFC 9051 §7.3.4): what the `RETURN` options asked for.
public struct IMAPESearchResult: Sendable, Equatable {
    /// The search command's tag (`(TAG "a1")`).
    public var tag: String
    /// Whether the numbers are UIDs.
    public var uid: Bool
    public var min: UInt32?
    public var max: UInt32?
    public var count: UInt32?
    /// `ALL`: the matches as a sequence set; nil when not asked or nothing matched.
    public var all: IMAPSequenceSet?

    public init(
        tag: String, uid: Bool, min: UInt32? = nil, max: UInt32? = nil, count: UInt32? = nil,
        all: IMAPSequenceSet? = nil
    ) {
        self.tag = tag
        self.uid = uid
        self.min = min
        self.max = max
        self.count = count
        self.all = all
    }
}
