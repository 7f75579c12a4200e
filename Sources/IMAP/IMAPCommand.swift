/// One client command, parsed (RFC 9051 §6): its tag and what it asks.
public struct IMAPCommand: Sendable, Equatable {
    /// The tag the answer carries.
    public var tag: String
    public var kind: IMAPCommandKind

    public init(tag: String, kind: IMAPCommandKind) {
        self.tag = tag
        self.kind = kind
    }
}

/// What a command asks, with its arguments typed.
public enum IMAPCommandKind: Sendable, Equatable {
    // Any state (§6.1).
    case capability, noop, logout
    // Not authenticated (§6.2).
    case startTLS
    /// `AUTHENTICATE mechanism [initial-response]` (RFC 4959's SASL-IR); the mechanism in upper case.
    case authenticate(mechanism: String, initialResponse: IMAPSASLData?)
    case login(username: String, password: String)
    // Authenticated (§6.3).
    /// `ENABLE`: the capability names in upper case.
    case enable([String])
    case select(IMAPMailboxName)
    case examine(IMAPMailboxName)
    case create(IMAPMailboxName)
    case delete(IMAPMailboxName)
    case rename(IMAPMailboxName, to: IMAPMailboxName)
    case subscribe(IMAPMailboxName)
    case unsubscribe(IMAPMailboxName)
    case list(IMAPListCommand)
    /// `LSUB reference pattern` (IMAP4rev1).
    case lsub(reference: String, pattern: String)
    case namespace
    case status(IMAPMailboxName, [IMAPStatusItem])
    /// `APPEND mailbox [flags] [date-time] literal`.
    case append(IMAPMailboxName, flags: [IMAPFlag], date: IMAPDateTime?, message: [UInt8])
    case idle
    // Selected (§6.4); `uid` is the `UID` prefix.
    case check, close, unselect, expunge
    /// `UID EXPUNGE set` (RFC 4315, RFC 9051).
    case uidExpunge(IMAPSequenceSet)
    case search(IMAPSearchCommand, uid: Bool)
    case fetch(IMAPSequenceSet, [IMAPFetchAttribute], uid: Bool)
    case store(IMAPSequenceSet, IMAPStoreAction, uid: Bool)
    case copy(IMAPSequenceSet, IMAPMailboxName, uid: Bool)
    case move(IMAPSequenceSet, IMAPMailboxName, uid: Bool)

    /// The states the command is allowed in (RFC 9051 §3, §6).
    public var allowedStates: Set<IMAPSessionStateName> {
        switch self {
        case .capability, .noop, .logout:
            return [.notAuthenticated, .authenticated, .selected]
        case .startTLS, .authenticate, .login:
            return [.notAuthenticated]
        case .enable, .select, .examine, .create, .delete, .rename, .subscribe, .unsubscribe, .list, .lsub,
             .namespace, .status, .append, .idle:
            return [.authenticated, .selected]
        case .check, .close, .unselect, .expunge, .uidExpunge, .search, .fetch, .store, .copy, .move:
            return [.selected]
        }
    }
}

/// The base64 text of one SASL message (RFC 9051 §6.2.2, RFC 4959): checked to be base64 (`=` alone is the empty
/// message), decoded by whoever runs the mechanism.
public struct IMAPSASLData: Sendable, Equatable {
    /// The base64 text, `""` for the empty message.
    public let base64: String

    /// The message of one line, or nil when it is not base64 (`=` is the empty message).
    public init?(line: some Collection<UInt8>) {
        if line.count == 1 && line.first == UInt8(ascii: "=") {
            base64 = ""
            return
        }
        guard !line.isEmpty, line.count % 4 == 0 else { return nil }
        let padding = line.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2, line.dropLast(padding).allSatisfy(Self.isBase64Character) else { return nil }
        base64 = String(decoding: line, as: UTF8.self)
    }

    /// An encoded message for a challenge, as the mechanism made it.
    public init(base64: String) {
        self.base64 = base64
    }

    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default: return false
        }
    }
}
