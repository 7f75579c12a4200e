import Storage

/// The change stream: the log the triggers of `migrations/*/0015_mail_changes.sql` write in the same transaction as
/// every change of a message, its trimming, and waiting for an address's mail to change.
extension MailStore {
    /// The PostgreSQL channel every change notifies (with the changed address as payload) when it commits.
    public static let notificationChannel = "postern_mail"

    /// The rows of `address`'s change log after state `since`, oldest first, and the address's state now; nil when
    /// `since` is older than the log (trimmed) or newer than the state (never issued): the client must start over.
    public func changes(address: String, since: Int64) async throws -> (log: [MailChange], state: Int64)? {
        try await database.read { connection in
            try connection.readTransaction {
                let row = try connection.query(
                    "SELECT state, floor FROM mail_state WHERE address = ?", [.text(address)]
                ).first
                let state = row?.int("state") ?? 0
                let floor = row?.int("floor") ?? 0
                guard since >= floor, since <= state else { return nil }
                let log = try connection.query(
                    """
                    SELECT seq, message_id, thread_id, kind, folder_before, folder_after FROM mail_changes
                        WHERE address = ? AND seq > ? ORDER BY seq
                    """, [.text(address), .integer(since)]
                ).compactMap(Self.change)
                return (log, state)
            }
        }
    }

    /// Which of `threads` have messages at `address` now.
    public func existingThreads(address: String, among threads: [String]) async throws -> Set<String> {
        let threads = Array(Set(threads))
        guard !threads.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: threads.count).joined(separator: ", ")
        return try await database.read { connection in
            Set(
                try connection.query(
                    "SELECT DISTINCT thread_id FROM mail_messages WHERE address = ? AND thread_id IN (\(marks))",
                    [.text(address)] + threads.map(SQLValue.text)
                ).compactMap { $0.text("thread_id") })
        }
    }

    /// Trims every address's change log to its newest `keep` rows and raises its floor to match; returns how many
    /// rows went. Clients at a state below the floor get `cannotCalculateChanges` and start over. Each address is
    /// trimmed through the log's primary key, in a transaction of its own.
    @discardableResult
    public static func trimChanges(_ connection: any SQLConnection, keep: Int) throws -> Int {
        let over = try connection.query(
            "SELECT address, state FROM mail_state WHERE floor < state - ?", [.integer(Int64(keep))])
        var removed = 0
        for row in over {
            guard let address = row.text("address"), let state = row.int("state") else { continue }
            let floor = state - Int64(keep)
            removed += try connection.transaction {
                try connection.run(
                    "UPDATE mail_state SET floor = ? WHERE address = ? AND floor < ?",
                    [.integer(floor), .text(address), .integer(floor)])
                return try connection.run(
                    "DELETE FROM mail_changes WHERE address = ? AND seq <= ?", [.text(address), .integer(floor)])
            }
        }
        return removed
    }

    /// Trims the change log to `keep` rows per address every `interval` until the schedule is cancelled.
    public func startTrimmingChanges(every interval: Duration, keep: Int) -> PurgeSchedule {
        PurgeSchedule.start(every: interval, on: database, purging: "old mail changes") {
            try Self.trimChanges($0, keep: keep)
        }
    }

    /// How long a change stream parks before it looks again without being woken, on SQLite: another process writing
    /// the same file (`postern mail deliver`) cannot wake it. PostgreSQL's instances wake each other (NOTIFY).
    static let unannouncedLookInterval: Duration = .seconds(1)

    /// The wait primitive of `/messages/wait` (and MCP's `wait_for_message`): calls `look` at once and again each
    /// time `address`'s mail changes (its ``changeStream(of:from:quiet:until:recheck:clock:)``), until it returns a
    /// value (returned) or `timeout` passes or the task is cancelled (nil); a look through a failover is tried again
    /// (``MailChangeStream/firstLook(_:)``).
    public func waitFor<T: Sendable>(
        address: String, timeout: Duration, _ look: @Sendable () async throws -> T?
    ) async throws -> T? {
        let from = try await state(address: address)
        return try await changeStream(of: address, from: from, until: .now + timeout).firstLook { _ in try await look() }
    }

    /// The oldest unread message in `address`'s inbox as soon as there is one, nil after `timeout`.
    public func nextUnread(address: String, timeout: Duration) async throws -> MailSummary? {
        try await waitFor(address: address, timeout: timeout) { try await oldestUnread(address: address) }
    }

    static func change(_ row: SQLRow) -> MailChange? {
        guard let seq = row.int("seq"), let id = row.text("message_id"),
            let kind = row.text("kind").flatMap(MailChange.Kind.init(rawValue:))
        else { return nil }
        return MailChange(
            seq: seq, messageID: id, threadID: row.text("thread_id"), kind: kind,
            folderBefore: row.text("folder_before").flatMap(MailFolder.init(rawValue:)),
            folderAfter: row.text("folder_after").flatMap(MailFolder.init(rawValue:)))
    }
}
