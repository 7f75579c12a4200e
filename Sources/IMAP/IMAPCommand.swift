import SASL

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
    /// `ID` (RFC 2971): the client's field-value pairs are read and not kept; the answer is the server's.
    case id
    // Not authenticated (§6.2).
    case startTLS
    /// `AUTHENTICATE mechanism [initial-response]` (RFC 4959's SASL-IR); the mechanism in upper case.
    case authenticate(mechanism: String, initialResponse: SASLMessage?)
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
    /// `SORT` (RFC 5256): the messages `search` finds, in the criteria's order.
    case sort(IMAPSortCommand, uid: Bool)
    /// `THREAD` (RFC 5256): the messages `search` finds, in threads.
    case thread(IMAPThreadCommand, uid: Bool)
    case fetch(IMAPSequenceSet, [IMAPFetchAttribute], uid: Bool)
    case store(IMAPSequenceSet, IMAPStoreAction, uid: Bool)
    case copy(IMAPSequenceSet, IMAPMailboxName, uid: Bool)
    case move(IMAPSequenceSet, IMAPMailboxName, uid: Bool)

    /// The states the command is allowed in (RFC 9051 §3, §6).
    public var allowedStates: Set<IMAPSessionStateName> {
        switch self {
        case .capability, .noop, .logout, .id:
            return [.notAuthenticated, .authenticated, .selected]
        case .startTLS, .authenticate, .login:
            return [.notAuthenticated]
        case .enable, .select, .examine, .create, .delete, .rename, .subscribe, .unsubscribe, .list, .lsub,
            .namespace, .status, .append, .idle:
            return [.authenticated, .selected]
        case .check, .close, .unselect, .expunge, .uidExpunge, .search, .sort, .thread, .fetch, .store, .copy, .move:
            return [.selected]
        }
    }
}
