/// Which services a ``PosternRuntime`` runs besides what every runtime has (the database, the thread pools and the
/// event loops): `postern serve` runs ``all``; a test runs only the ones it needs.
///
/// A listener whose setting is off (`POSTERN_SMTP=off`, `POSTERN_SANDBOX_SMTP_PORT=0`, no `POSTERN_METRICS_LISTEN`)
/// is neither bound nor run, whatever the set says; the PostgreSQL listeners run on PostgreSQL only.
public struct PosternServiceSet: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The HTTP server on `POSTERN_PORT`, and `/readyz` draining for `POSTERN_DRAIN_SECONDS` before it stops.
    public static let http = Self(rawValue: 1 << 0)
    /// The SMTP ingest listener.
    public static let smtp = Self(rawValue: 1 << 1)
    /// The SMTP sandbox's submission listener.
    public static let sandbox = Self(rawValue: 1 << 2)
    /// The `/metrics` listener of `POSTERN_METRICS_LISTEN`.
    public static let metrics = Self(rawValue: 1 << 3)
    /// The webhook dispatcher's delivery loop.
    public static let webhooks = Self(rawValue: 1 << 4)
    /// PostgreSQL's `LISTEN` for other instances' key rotations, mail changes and grant revocations.
    public static let databaseListeners = Self(rawValue: 1 << 5)
    /// The periodic purges (challenges, blobs, mail changes, owner sessions, OAuth rows, audit events).
    public static let purges = Self(rawValue: 1 << 6)
    /// The key reload every `POSTERN_KEY_RELOAD_SECONDS`.
    public static let keyReload = Self(rawValue: 1 << 7)

    /// The outbound dispatcher's delivery loop (run only when `POSTERN_OUTBOUND_DELIVERY` is not `off`).
    public static let outbound = Self(rawValue: 1 << 8)
    /// The IMAP listener of `POSTERN_IMAP`.
    public static let imap = Self(rawValue: 1 << 9)
    /// The POP3 listener of `POSTERN_POP3`.
    public static let pop3 = Self(rawValue: 1 << 10)
    /// The submission listener of `POSTERN_SUBMISSION` (and its implicit-TLS port).
    public static let submission = Self(rawValue: 1 << 11)

    /// Everything `postern serve` runs.
    public static let all: Self = [
        .http, .smtp, .sandbox, .metrics, .webhooks, .databaseListeners, .purges, .keyReload, .outbound, .imap, .pop3,
        .submission,
    ]
}
