import EmailAddresses
import Foundation
import Storage

/// What JMAP reads and changes beyond Mail.td's view: queries with filters and sorts, states, per-folder counts,
/// threads, keyword and folder updates, and uploaded blobs. Every call is scoped to one address.
extension MailStore {
    /// The address's state: a counter every insert, update and delete of its mail moves (0 before any mail).
    public func state(address: String) async throws -> Int64 {
        try await database.read { connection in try Self.state(address: address, connection) }
    }

    static func state(address: String, _ connection: any SQLConnection) throws -> Int64 {
        try connection.query("SELECT state FROM mail_state WHERE address = ?", [.text(address)]).first?
            .int("state") ?? 0
    }

    /// The ids of `address`'s messages that pass `filter`, in `sort` order (then newest first, arrival order breaking ties), from
    /// `position` on, at most `limit`; and how many pass in all when `countTotal` (else nil).
    public func query(
        address: String, filter: MailFilter, sort: [MailSort], position: Int, limit: Int, countTotal: Bool = true
    ) async throws -> (ids: [String], total: Int?) {
        let dialect = database.dialect
        return try await database.read { connection in
            try connection.readTransaction {
                try Self.query(
                    address: address, filter: filter, sort: sort, position: position, limit: limit,
                    countTotal: countTotal, dialect: dialect, connection)
            }
        }
    }

    static func query(
        address: String, filter: MailFilter, sort: [MailSort], position: Int, limit: Int, countTotal: Bool,
        dialect: SQLDialect, _ connection: any SQLConnection
    ) throws -> (ids: [String], total: Int?) {
        let (condition, values) = filter.sql(dialect)
        let order = (sort.map { $0.sql(dialect) } + ["received_at DESC", "received_seq DESC"]).joined(separator: ", ")
        let total = try countTotal ? connection.query(
            "SELECT COUNT(*) AS n FROM mail_messages WHERE address = ? AND \(condition)",
            [.text(address)] + values
        ).first?.int("n") ?? 0 : nil
        let ids = try connection.query(
            "SELECT id FROM mail_messages WHERE address = ? AND \(condition) ORDER BY \(order) LIMIT ? OFFSET ?",
            [.text(address)] + values + [.integer(Int64(limit)), .integer(Int64(position))]
        ).compactMap { $0.text("id") }
        return (ids, total.map(Int.init))
    }

    /// Messages and unread messages per folder, and the same counted by thread.
    public func folderCounts(address: String) async throws -> [MailFolder: FolderCounts] {
        try await database.read { connection in
            var counts: [MailFolder: FolderCounts] = [:]
            for row in try connection.query(
                """
                SELECT folder, COUNT(*) AS total, SUM(CASE WHEN is_read = 0 THEN 1 ELSE 0 END) AS unread, COUNT(DISTINCT thread_id) AS threads,
                    COUNT(DISTINCT CASE WHEN is_read = 0 THEN thread_id END) AS unread_threads
                    FROM mail_messages WHERE address = ? GROUP BY folder
                """, [.text(address)])
            {
                guard let folder = row.text("folder").flatMap(MailFolder.init(rawValue:)) else { continue }
                counts[folder] = FolderCounts(
                    total: Int(row.int("total") ?? 0), unread: Int(row.int("unread") ?? 0),
                    threads: Int(row.int("threads") ?? 0), unreadThreads: Int(row.int("unread_threads") ?? 0))
            }
            return counts
        }
    }

    /// Counts of one folder.
    public struct FolderCounts: Sendable, Equatable {
        public var total = 0
        public var unread = 0
        public var threads = 0
        public var unreadThreads = 0

        public init(total: Int = 0, unread: Int = 0, threads: Int = 0, unreadThreads: Int = 0) {
            self.total = total
            self.unread = unread
            self.threads = threads
            self.unreadThreads = unreadThreads
        }
    }

    /// The messages of thread `id` at `address`, oldest first; empty when there is no such thread.
    public func thread(address: String, id: String) async throws -> [String] {
        try await database.read { connection in
            try connection.query(
                "SELECT id FROM mail_messages WHERE address = ? AND thread_id = ? ORDER BY received_at, received_seq",
                [.text(address), .text(id)]
            ).compactMap { $0.text("id") }
        }
    }

    /// Sets a message's keywords (all of them, `$seen` included) and folder; false when `address` has no such
    /// message.
    /// - Throws: ``MailStoreError/keywordLimit(_:)`` when `keywords` pass a cap, ``MailFolderError/noSuchFolder``
    ///   when `address` has no `folder` (nothing changed).
    public func update(address: String, id: String, keywords: Set<String>, folder: MailFolder) async throws -> Bool {
        defer { changes.announce([address]) }
        return try await database.write { connection in
            try connection.transaction {
                try Self.checkFolder(address, folder, connection)
                try checkKeywords(address, [(id, keywords)], connection)
                return try connection.run(
                    "UPDATE mail_messages SET keywords = ?, is_read = ?, folder = ? WHERE address = ? AND id = ?",
                    [
                        .text(Self.keywordsJSON(keywords)), .integer(keywords.contains("$seen") ? 1 : 0),
                        .text(folder.rawValue), .text(address), .text(id),
                    ]) > 0
            }
        }
    }

    /// Stores a copy of `message` that `address` wrote (``MailOrigin/written``: it may be submitted) in `folder`, with
    /// the quota and the keyword caps checked in the same transaction.
    /// - Throws: ``MailStoreError/quotaExceeded(address:)``, ``MailStoreError/keywordLimit(_:)``.
    public func save(
        _ message: NewMailMessage, address: String, quota: Int64, folder: MailFolder, keywords: Set<String>, now: Int64
    ) async throws -> String {
        try await deliver(
            message, to: [Recipient(address: address, quota: quota)], folder: folder, keywords: keywords,
            isRead: keywords.contains("$seen"), origin: .written, now: now)[0]
    }

    /// ``save(_:address:quota:folder:keywords:now:)`` on `connection`, inside the caller's transaction (a submission
    /// keeps its sender's copy in the transaction that records it); answers with the copy's id and thread.
    /// - Warning: nothing is announced: once the caller's transaction commits, call ``MailChanges/announce(_:)``.
    /// - Throws: ``MailStoreError/quotaExceeded(address:)``, ``MailStoreError/keywordLimit(_:)`` (nothing written).
    public func save(
        _ message: NewMailMessage, address: String, quota: Int64, folder: MailFolder, keywords: Set<String>,
        now: Int64, on connection: any SQLConnection
    ) throws -> (id: String, threadID: String) {
        try copy(
            message, to: Recipient(address: address, quota: quota), folder: folder, keywords: keywords,
            isRead: keywords.contains("$seen"), origin: .written, now: now, on: connection)
    }

    // MARK: blobs

    /// How long an uploaded blob is kept: RFC 8620 section 6.1 keeps an unreferenced upload at least an hour, and
    /// nothing references one here (a message made from a blob holds its own copy of the bytes).
    public static let blobLifetime: Int64 = 3600

    /// Keeps `data` as a blob of `address`, which counts against `quota` with its mail until it expires
    /// (``blobLifetime``); returns its id (`B` and 32 hex digits). The address's expired blobs go first.
    /// - Throws: ``MailStoreError/quotaExceeded(address:)`` when the blob would pass `quota`.
    public func putBlob(address: String, type: String, data: [UInt8], quota: Int64, now: Int64) async throws
        -> String
    {
        let id = "B" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await database.write { connection in
            try connection.transaction {
                try connection.run(
                    "DELETE FROM mail_blobs WHERE address = ? AND created_at <= ?",
                    [.text(address), .integer(now - Self.blobLifetime)])
                guard try Self.used(address, connection) + Int64(data.count) <= quota else {
                    throw MailStoreError.quotaExceeded(address: address)
                }
                try connection.run(
                    "INSERT INTO mail_blobs (id, address, type, size, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [.text(id), .text(address), .text(type), .integer(Int64(data.count)), .blob(data), .integer(now)])
            }
        }
        return id
    }

    /// Deletes every blob uploaded before `now - blobLifetime`; returns how many (the periodic purge).
    public static func purgeExpiredBlobs(_ connection: any SQLConnection, now: Int64) throws -> Int {
        try connection.run("DELETE FROM mail_blobs WHERE created_at <= ?", [.integer(now - blobLifetime)])
    }

    /// Purges expired blobs every `interval` until the schedule is cancelled; keep the schedule.
    public func startExpiringBlobs(every interval: Duration, now: @escaping @Sendable () -> Int64) -> PurgeSchedule {
        PurgeSchedule.start(every: interval, on: database, purging: "expired blobs") {
            try Self.purgeExpiredBlobs($0, now: now())
        }
    }

    /// Blob `id` of `address`: one it uploaded (`B…`), a message's raw bytes (`M<message id>`), a body part's
    /// text (`T<message id>`, `H<message id>` for HTML, as UTF-8) or an attachment (`A<message id>_<index>`).
    /// Nil when `address` has no such blob.
    public func blob(address: String, id: String) async throws -> (type: String, data: [UInt8])? {
        guard let kind = id.first else { return nil }
        let rest = String(id.dropFirst())
        switch kind {
        case "B":
            return try await database.read { connection in
                guard let row = try connection.query(
                    "SELECT type, data FROM mail_blobs WHERE address = ? AND id = ?", [.text(address), .text(id)]
                ).first, let type = row.text("type"), let data = row.blob("data") else { return nil }
                return (type, data)
            }
        case "M":
            return try await raw(address: address, id: rest).map { ("message/rfc822", $0) }
        case "T", "H":
            guard let message = try await message(address: address, id: rest),
                let text = kind == "T" ? message.textBody : message.htmlBody
            else { return nil }
            return (kind == "T" ? "text/plain" : "text/html", Array(text.utf8))
        case "A":
            guard let split = rest.lastIndex(of: "_"), let index = Int(rest[rest.index(after: split)...]),
                let (info, data) = try await attachment(address: address, id: String(rest[..<split]), position: index)
            else { return nil }
            return (info.contentType, data)
        default:
            return nil
        }
    }

    // MARK: outbox

    /// Keeps a message submitted for foreign recipients; returns its outbox id.
    /// - Parameter submissionID: the submission whose held recipients these are, when one was recorded.
    public func keepInOutbox(
        sender: String, recipients: [String], raw: [UInt8], now: Int64, submissionID: String? = nil
    ) async throws -> String {
        try await database.write { connection in
            try keepInOutbox(
                sender: sender, recipients: recipients, raw: raw, now: now, submissionID: submissionID, on: connection)
        }
    }

    /// ``keepInOutbox(sender:recipients:raw:now:submissionID:)`` on `connection`, inside the caller's transaction (the
    /// submission that holds the recipients records them in it).
    public func keepInOutbox(
        sender: String, recipients: [String], raw: [UInt8], now: Int64, submissionID: String?,
        on connection: any SQLConnection
    ) throws -> String {
        let id = UUID().uuidString.lowercased()
        _ = try connection.run(
            """
            INSERT INTO mail_outbox (id, sender, recipients, raw, created_at, submission_id)
                VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(id), .text(sender), .text(Self.json(recipients)), .blob(raw), .integer(now),
                submissionID.map(SQLValue.text) ?? .null,
            ])
        return id
    }

    /// One message the outbox keeps.
    public struct OutboxEntry: Sendable, Equatable {
        public var id: String
        public var sender: String
        public var recipients: [String]
        public var size: Int
        public var createdAt: Int64
        /// The submission whose held recipients these are; nil when none was recorded.
        public var submissionID: String? = nil
    }

    /// The message outbox entry `id` keeps, and the entry; nil when there is none.
    public func outboxMessage(id: String) async throws -> (entry: OutboxEntry, raw: [UInt8])? {
        try await database.read { connection in
            guard let row = try connection.query(
                "SELECT id, sender, recipients, raw, created_at, submission_id FROM mail_outbox WHERE id = ?",
                [.text(id)]
            ).first, let sender = row.text("sender"), let raw = row.blob("raw") else { return nil }
            let entry = OutboxEntry(
                id: id, sender: sender, recipients: Self.addresses(row.text("recipients")), size: raw.count,
                createdAt: row.int("created_at") ?? 0, submissionID: row.text("submission_id"))
            return (entry, raw)
        }
    }

    /// Removes outbox entry `id` (its mail was released); false when there was none.
    @discardableResult
    public func removeFromOutbox(id: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM mail_outbox WHERE id = ?", [.text(id)]) > 0
        }
    }

    /// A `recipients` column read back (a JSON array of addresses).
    static func addresses(_ column: String?) -> [String] {
        column.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
    }

    /// Every message the outbox keeps, oldest first: of `sender` only (compared as addresses are,
    /// ``EmailAddress/same(_:_:)``) when one is named. SQL's `lower` only narrows the rows (older rows keep the
    /// sender's case as it was written, and PostgreSQL's `lower` folds KELVIN SIGN onto `k`): the address decides.
    public func outbox(sender: String? = nil) async throws -> [OutboxEntry] {
        let filter = sender.map { (sql: "WHERE lower(sender) = ?", bindings: [SQLValue.text(EmailAddress.key($0))]) }
        let entries: [OutboxEntry] = try await database.read { connection in
            try connection.query(
                """
                SELECT id, sender, recipients, length(raw) AS size, created_at, submission_id FROM mail_outbox
                \(filter?.sql ?? "") ORDER BY created_at, id
                """, filter?.bindings ?? []
            ).compactMap { row in
                guard let id = row.text("id"), let sender = row.text("sender") else { return nil }
                return OutboxEntry(
                    id: id, sender: sender, recipients: Self.addresses(row.text("recipients")),
                    size: Int(row.int("size") ?? 0), createdAt: row.int("created_at") ?? 0,
                    submissionID: row.text("submission_id"))
            }
        }
        guard let sender else { return entries }
        return entries.filter { EmailAddress.same($0.sender, sender) }
    }
}
