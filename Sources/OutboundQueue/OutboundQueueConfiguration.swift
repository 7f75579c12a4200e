import ConfigurationReading
import MailDelivery

/// Who may send outside, how much, and how the queue retries: every setting of the outbound queue in one place.
///
/// ``init(config:)`` reads the operator's keys from a reader of whole names (it scopes itself to `POSTERN_OUTBOUND`)
/// and refuses a bad value naming its key. The transport's own keys (`POSTERN_OUTBOUND_DELIVERY`, `_SMTP_PORT`, `_TLS`,
/// `_TRUST_CA_FILE`, `POSTERN_RELAY_URL`) are read by the transport's configuration, not here.
///
/// ## Configuration keys
/// - `POSTERN_OUTBOUND_SENDERS` (`owned` or `all`, default `owned`): ``senders``.
/// - `POSTERN_OUTBOUND_PER_HOUR` (positive integer, default 100): ``perHour``.
/// - `POSTERN_OUTBOUND_PER_DAY` (positive integer, default 1000): ``perDay``.
/// - `POSTERN_OUTBOUND_OWNER_PER_HOUR` (positive integer, default 200): ``ownerPerHour``.
/// - `POSTERN_OUTBOUND_RETRY_SECONDS` (seconds, default `300,900,1800,3600,7200,14400,28800`): ``retrySeconds``.
/// - `POSTERN_OUTBOUND_MAX_QUEUE_SECONDS` (positive integer, default 432000, five days): ``maxQueueSeconds``.
/// - `POSTERN_OUTBOUND_PER_DESTINATION` (positive integer, default 2): ``perDestination``.
/// - `POSTERN_OUTBOUND_SUPPRESS_SECONDS` (positive integer, default 604800, seven days): ``suppressSeconds``.
/// - `POSTERN_OUTBOUND_LEASE_SECONDS` (3 to 3600, default 60): ``leaseSeconds``.
/// - `POSTERN_OUTBOUND_MESSAGES_PER_CONNECTION` (1 to 1000, default 20): ``messagesPerConnection``.
/// - `POSTERN_OUTBOUND_DELAY_NOTICE_SECONDS` (seconds, 0 for none, default 14400, four hours): ``delayNoticeSeconds``.
/// - `POSTERN_OUTBOUND_MAX_MESSAGE_BYTES` (positive integer, default 26214400, 25 MiB): ``maxMessageBytes``.
public struct OutboundQueueConfiguration: Sendable, Equatable {
    /// Whose mail may leave the server.
    public enum Senders: String, Sendable, Equatable {
        /// Only inboxes someone answers for (agent inboxes an owner the operator made or approved linked or created,
        /// inboxes on verified custom domains): a cheap identity, or an owner who signed up themselves, cannot send
        /// outside.
        case owned
        /// Every local mailbox.
        case all
    }

    /// Whose mail may leave; the others' outside recipients stay in the outbox. Default ``Senders/owned``.
    public var senders: Senders = .owned
    /// Outside recipients one sender may submit in any hour. Default 100.
    public var perHour = 100
    /// Outside recipients one sender may submit in any day. Default 1000.
    public var perDay = 1000
    /// Outside recipients every inbox one owner holds may submit together in any hour, counted against the owner
    /// whichever inbox sent them (one deleted or unlinked since still counts). Default 200: two inboxes' worth of
    /// ``perHour``, so that an owner's 50 inboxes do not make 50 senders.
    public var ownerPerHour = 200
    /// The delay before each retry after a deferral, in seconds: attempt `n + 1` waits `retrySeconds[n - 1]` after
    /// attempt `n`; past the end the last delay repeats. Default 5, 15, 30 minutes, 1, 2, 4, 8 hours (Postfix-like).
    public var retrySeconds: [Int] = [300, 900, 1800, 3600, 7200, 14400, 28800]
    /// How long a message may wait in the queue: a deferral after this age fails the recipient (a bounce).
    /// Default 432000 (5 days, Postfix's `maximal_queue_lifetime`).
    public var maxQueueSeconds = 432_000
    /// Connections at once to one destination domain from one instance. Default 2.
    public var perDestination = 2
    /// How long an address that bounced hard (a 5.1.x reply) is suppressed: no attempt, an immediate `no`.
    /// Default 604800 (7 days).
    public var suppressSeconds = 604_800
    /// How long a claim holds its recipients, in seconds. The dispatcher renews the lease every third of it while the
    /// attempt runs (however long the SMTP session takes), so an instance that dies gives its recipients back within
    /// one lease. Default 60.
    public var leaseSeconds = 60
    /// The most due messages for one destination domain carried over one SMTP connection, `RSET` between them (maddy
    /// and Postfix reuse connections too): ten messages waiting for one domain make one session, not ten. 1 opens a
    /// connection per message. Default 20.
    public var messagesPerConnection = 20
    /// How long a recipient may be deferred before its sender is told, once, with a delayed-delivery notice (RFC 3464
    /// `Action: delayed`; Postfix's `delay_warning_time`): seconds since the message was queued. 0 sends none.
    /// Default 14400 (4 hours).
    public var delayNoticeSeconds = 14_400
    /// The largest message a submission may queue for other domains, in bytes: a larger one is refused `tooLarge`
    /// before anything is sent. Default 26214400 (25 MiB, the SMTP listener's own default).
    public var maxMessageBytes = 25 * 1024 * 1024

    /// The limits every submission's recipients on other domains are counted against: ``perHour`` and ``perDay`` per
    /// sender, named "hourly" and "daily", and ``ownerPerHour`` for all the inboxes of one owner together ("hourly",
    /// scope ``SendLimit/Scope/holder``).
    public var sendLimits: [SendLimit] {
        [
            SendLimit(name: "hourly", count: perHour, windowSeconds: 3600),
            SendLimit(name: "daily", count: perDay, windowSeconds: 86_400),
            SendLimit(name: "hourly", count: ownerPerHour, windowSeconds: 3600, scope: .holder),
        ]
    }

    /// The defaults.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init()
        let config = config.scoped(to: "POSTERN_OUTBOUND")
        if let senders = try config.choice("SENDERS", ["owned", "all"]) { self.senders = Senders(rawValue: senders)! }
        if let count = try config.integer("PER_HOUR") { perHour = count }
        if let count = try config.integer("PER_DAY") { perDay = count }
        if let count = try config.integer("OWNER_PER_HOUR") { ownerPerHour = count }
        if let delays = config.list("RETRY_SECONDS") {
            let parsed = delays.compactMap { Int($0) }
            guard parsed.count == delays.count else {
                throw config.error("RETRY_SECONDS", "must be comma-separated seconds")
            }
            retrySeconds = parsed
        }
        if let seconds = try config.integer("MAX_QUEUE_SECONDS") { maxQueueSeconds = seconds }
        if let count = try config.integer("PER_DESTINATION") { perDestination = count }
        if let seconds = try config.integer("SUPPRESS_SECONDS") { suppressSeconds = seconds }
        if let seconds = try config.integer("LEASE_SECONDS") { leaseSeconds = seconds }
        if let count = try config.integer("MESSAGES_PER_CONNECTION") { messagesPerConnection = count }
        if let seconds = try config.integer("DELAY_NOTICE_SECONDS") { delayNoticeSeconds = seconds }
        if let bytes = try config.integer("MAX_MESSAGE_BYTES") { maxMessageBytes = bytes }
        try validate()
    }

    /// Refuses settings the queue cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        let checks: [(Bool, String, String)] = [
            (perHour > 0, "POSTERN_OUTBOUND_PER_HOUR", "must be positive"),
            (perDay > 0, "POSTERN_OUTBOUND_PER_DAY", "must be positive"),
            (ownerPerHour > 0, "POSTERN_OUTBOUND_OWNER_PER_HOUR", "must be positive"),
            (
                !retrySeconds.isEmpty && retrySeconds.count <= 32
                    && retrySeconds.allSatisfy { (1...86_400).contains($0) },
                "POSTERN_OUTBOUND_RETRY_SECONDS", "must be 1 to 32 delays of 1 to 86400 seconds"
            ),
            (maxQueueSeconds > 0, "POSTERN_OUTBOUND_MAX_QUEUE_SECONDS", "must be positive"),
            ((1...64).contains(perDestination), "POSTERN_OUTBOUND_PER_DESTINATION", "must be 1 to 64"),
            (suppressSeconds > 0, "POSTERN_OUTBOUND_SUPPRESS_SECONDS", "must be positive"),
            ((3...3600).contains(leaseSeconds), "POSTERN_OUTBOUND_LEASE_SECONDS", "must be 3 to 3600"),
            (
                (1...1000).contains(messagesPerConnection), "POSTERN_OUTBOUND_MESSAGES_PER_CONNECTION",
                "must be 1 to 1000"
            ),
            (delayNoticeSeconds >= 0, "POSTERN_OUTBOUND_DELAY_NOTICE_SECONDS", "must be 0 (none) or positive"),
            (
                (1024...(1 << 30)).contains(maxMessageBytes), "POSTERN_OUTBOUND_MAX_MESSAGE_BYTES",
                "must be 1024 to 1073741824"
            ),
        ]
        for (valid, key, message) in checks where !valid { throw ConfigurationError(key: key, message: message) }
    }

    /// The delay after the `attempt`-th attempt (1-based) was deferred: past the list's end the last repeats.
    public func retryDelay(afterAttempt attempt: Int) -> Int64 {
        Int64(retrySeconds[min(max(attempt, 1), retrySeconds.count) - 1])
    }

    /// How far a retry delay is moved, either way, at most: 10%, so that recipients deferred together (a greylisting
    /// or a busy receiver answering a whole batch) do not all come back in the same second.
    public static let retryJitter = 0.1

    /// ``retryDelay(afterAttempt:)`` moved by `jitter` (from -1 to 1, clamped) times ``retryJitter`` of itself, at
    /// least a second.
    public func retryDelay(afterAttempt attempt: Int, jitter: Double) -> Int64 {
        let delay = retryDelay(afterAttempt: attempt)
        let shift = (Double(delay) * Self.retryJitter * min(max(jitter, -1), 1)).rounded()
        return max(1, delay + Int64(shift))
    }
}
