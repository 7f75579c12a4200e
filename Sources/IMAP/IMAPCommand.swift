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
    /// `CREATE mailbox [(USE (attributes))]`: RFC 6154's special-use attributes asked for, as written.
    case create(IMAPMailboxName, use: [String])
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

extension IMAPCommandKind {
    /// The command with every mailbox name (and `LIST`'s and `LSUB`'s reference and patterns) passed through
    /// `transform`; nil when `transform` refuses a name. A reference or pattern it refuses is kept as sent: it names no
    /// mailbox, so it matches none (imaptest's `atoms` lists `!#$$&'+,...`, which is no modified UTF-7).
    public func mappingMailboxNames(_ transform: (String) -> String?) -> IMAPCommandKind? {
        func name(_ mailbox: IMAPMailboxName) -> IMAPMailboxName? { transform(mailbox.name).map(IMAPMailboxName.init) }
        switch self {
        case .select(let mailbox): return name(mailbox).map { .select($0) }
        case .examine(let mailbox): return name(mailbox).map { .examine($0) }
        case .create(let mailbox, let use): return name(mailbox).map { .create($0, use: use) }
        case .delete(let mailbox): return name(mailbox).map { .delete($0) }
        case .rename(let from, let to):
            guard let from = name(from), let to = name(to) else { return nil }
            return .rename(from, to: to)
        case .subscribe(let mailbox): return name(mailbox).map { .subscribe($0) }
        case .unsubscribe(let mailbox): return name(mailbox).map { .unsubscribe($0) }
        case .list(var list):
            list.reference = transform(list.reference) ?? list.reference
            list.patterns = list.patterns.map { transform($0) ?? $0 }
            return .list(list)
        case .lsub(let reference, let pattern):
            return .lsub(reference: transform(reference) ?? reference, pattern: transform(pattern) ?? pattern)
        case .status(let mailbox, let items): return name(mailbox).map { .status($0, items) }
        case .append(let mailbox, let flags, let date, let message):
            return name(mailbox).map { .append($0, flags: flags, date: date, message: message) }
        case .copy(let set, let mailbox, let uid): return name(mailbox).map { .copy(set, $0, uid: uid) }
        case .move(let set, let mailbox, let uid): return name(mailbox).map { .move(set, $0, uid: uid) }
        default: return self
        }
    }
}
