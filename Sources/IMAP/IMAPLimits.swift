import MailDoor

/// Every limit of an IMAP session in one place: what one command may hold, how deep it may nest, how much input may
/// wait unanswered, and how long a client may stay silent. Each bound keeps a session's memory fixed whatever the
/// client sends; a command past one is answered with a tagged `BAD` naming the limit (``IMAPCommandError``).
///
/// What the store keeps is bounded by the store, for every door alike: the keyword caps (a keyword's length, keywords
/// on a message and in an address's mail) are MailStore's `MailKeywordLimits`, and a `STORE` or an `APPEND` past one
/// is `NO [LIMIT]`.
public struct IMAPLimits: Sendable, Equatable {
    /// The most bytes of command text, literals excluded (all the lines of one command together). RFC 7162 §4 asks
    /// servers to take at least 8,000; Dovecot takes 64 KiB, which this matches so that long UID sets from `mbsync`
    /// pass. A longer command is read to its end, dropped and answered `BAD`. Default 65,536.
    public var maxLineBytes = 65_536
    /// The most bytes of one command's literals together (an `APPEND`'s message is one). A synchronizing literal
    /// past it is refused before the client sends it (`BAD [TOOBIG]`, no continuation request). Default 32 MiB.
    public var maxLiteralBytes = 32 * 1024 * 1024
    /// The most bytes of a non-synchronizing literal (`{n+}`): RFC 7888's `LITERAL-` bound. A larger one was sent
    /// without asking, so it is read and dropped and the command answered `BAD [TOOBIG]`. Default 4,096.
    public var maxNonSynchronizingLiteralBytes = 4096
    /// How deeply parentheses may nest in one command (search keys, `OR`/`NOT` chains, lists). Default 32.
    public var maxNestingDepth = 32
    /// The most ranges and numbers of one sequence set (`1,3,5:9` is three). Default 16,384.
    public var maxSequenceSetRanges = 16_384
    /// The most bytes of one string a `SEARCH`, `SORT` or `THREAD` key matches (`BODY`, `TEXT`, `SUBJECT`, `HEADER`,
    /// an address). What people and clients search for is a word or a phrase, an address or a Message-ID, far below;
    /// a longer needle is answered `NO [LIMIT]` before any mail is read (as an implementation limit, RFC 5530, not as
    /// bad syntax). The matcher is linear, but the store's SQL `LIKE` a search will move to is not. Default 1,024.
    public var maxSearchStringBytes = 1024
    /// The most bytes of messages one `SEARCH`, `SORT` or `THREAD` may read, each message counted at its stored size
    /// once per key that reads it (a `BODY` key and a `SUBJECT` key over a mailbox read it twice). Past it the command
    /// stops and is answered `NO [LIMIT]`. Six times a free Mail.td account's full 40 MiB, so that a search of a few
    /// keys over a full mailbox passes. Default 256 MiB.
    public var maxSearchBytesPerCommand = 256 * 1024 * 1024
    /// The most bytes of messages the searches, sorts and threads of one account (every session of the listener
    /// together) may read at once, refilled at ``searchBytesPerAccountPerSecond``: a token bucket, so that many
    /// sessions or commands in a row cannot multiply ``maxSearchBytesPerCommand``. A command past what is left is
    /// answered `NO [LIMIT]`. Default 512 MiB.
    public var searchBytesPerAccount = 512 * 1024 * 1024
    /// How fast an account's search allowance refills (a linear scan of 4 MiB/s is a few percent of a core).
    /// Default 4 MiB per second.
    public var searchBytesPerAccountPerSecond = 4 * 1024 * 1024
    /// The most accounts whose search allowance the listener remembers (about 100 bytes each). Past it, an account
    /// whose allowance has refilled is forgotten first, then the one that spent least. Default 16,384.
    public var searchAccountsTracked = 16_384
    /// The most commands answered from input already buffered before the session hands the turn back to its
    /// driver (``IMAPSession/hasBufferedInput``): a client that pipelines 10,000 commands gets every answer, in
    /// turns of this many, with the output of one turn bounded. Default 64.
    public var maxPipelinedCommands = 64
    /// The most bytes received and not yet read as commands (pipelined behind the one in progress). The driver stops
    /// reading from the socket while ``IMAPSession/wantsInput`` is false. Default 256 KiB.
    public var maxBufferedInputBytes = 256 * 1024
    /// How long a session may stay silent before the server logs it out (RFC 9051 §5.4: at least 30 minutes; an
    /// IDLE that clients re-issue every 29 minutes keeps it open). Default 30 minutes.
    public var autologout: Duration = .seconds(30 * 60)
    /// How long a session that has not signed in may stay silent. Default 60 s, POP3's too
    /// (``MailDoorTimeouts/unauthenticated``).
    public var unauthenticatedTimeout: Duration = MailDoorTimeouts.unauthenticated

    /// Before sign-in, the most bytes of command text: a `LOGIN`, an `AUTHENTICATE` line with an access token, an
    /// `ID` (RFC 2971 allows 30 pairs of 1,024-byte values, about 31 KiB). Default 32,768.
    public var maxUnauthenticatedLineBytes = 32_768
    /// Before sign-in, the most bytes of one command's literals (a `LOGIN` password sent as a literal): a larger
    /// synchronizing literal is refused before the client sends it. Default 8,192; review 7's 53 connections each
    /// announcing 32 MiB crashed a server that took the signed-in limit from anyone.
    public var maxUnauthenticatedLiteralBytes = 8_192

    /// The defaults.
    public init() {}

    /// These limits as they stand before sign-in: text and literals at most the unauthenticated bounds.
    public var unauthenticated: IMAPLimits {
        var limits = self
        limits.maxLineBytes = min(maxLineBytes, maxUnauthenticatedLineBytes)
        limits.maxLiteralBytes = min(maxLiteralBytes, maxUnauthenticatedLiteralBytes)
        limits.maxNonSynchronizingLiteralBytes = min(maxNonSynchronizingLiteralBytes, limits.maxLiteralBytes)
        return limits
    }
}
