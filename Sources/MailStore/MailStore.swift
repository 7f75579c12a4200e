import Foundation
import JSON
import MIME
import Storage

/// Every local address's mail (`migrations/sqlite/0006_mail.sql`) behind small async methods. Every read here is scoped
/// to one address, so a caller that authorised an address can never reach another's messages; the store-wide reads
/// of `MailStore+Search.swift` are the operator's alone.
public struct MailStore: Sendable {
    let database: any SQLDatabase
    /// Who waits for this store's mail to change: announced to after every write that commits.
    public let changes: MailChanges
    /// Told of every copy delivered to a held inbox, in the delivery's transaction (the webhook queue); nil: no one.
    public let arrivals: (any MailArrivalObserver)?
    /// How many keywords a message and an address may carry, and how long each: every keyword write checks them.
    public let keywordLimits: MailKeywordLimits
    /// How many folders an address may make, and how long and deep their names: every folder write checks them.
    public let folderLimits: MailFolderLimits

    /// A store over `database`, migrated with `0006_mail.sql` and on.
    /// - Parameters:
    ///   - changes: the change stream its writes announce on; every store of one server shares the one its
    ///     composition root made, so that a write through any of them wakes every waiter. A store of its own otherwise.
    ///   - arrivals: what hears of inbox deliveries to held recipients; the composition root passes the
    ///     webhook queue's, and a store that delivers nothing needs none.
    ///   - keywordLimits: the keyword caps (their defaults unless a test needs others).
    ///   - folderLimits: the folder caps (their defaults unless a test needs others).
    public init(
        database: any SQLDatabase, changes: MailChanges = MailChanges(), arrivals: (any MailArrivalObserver)? = nil,
        keywordLimits: MailKeywordLimits = MailKeywordLimits(), folderLimits: MailFolderLimits = MailFolderLimits()
    ) {
        self.database = database
        self.changes = changes
        self.arrivals = arrivals
        self.keywordLimits = keywordLimits
        self.folderLimits = folderLimits
    }

    /// One recipient of a delivery: its lower-cased address and the bytes it may hold.
    public struct Recipient: Sendable, Equatable {
        public var address: String
        public var quota: Int64
        /// The envelope recipients (`RCPT TO`) that led to this copy, in the order they were given; kept in
        /// `envelope_to` (migration 0029) joined by `, `. Empty when no SMTP envelope brought the message.
        public var envelopeTo: [String]
        /// Who holds the inbox (the delivery's directory said so); nil for an unheld one, which no observer hears of.
        public var holder: MailHolder?

        public init(address: String, quota: Int64, envelopeTo: [String] = [], holder: MailHolder? = nil) {
            self.address = address
            self.quota = quota
            self.envelopeTo = envelopeTo
            self.holder = holder
        }
    }

    /// Stores one copy of `message` per recipient in one transaction: all or none. A copy in the inbox of a recipient
    /// with a holder is handed to ``arrivals`` in that transaction. Returns the new ids in the order of `recipients`.
    /// - Throws: ``MailStoreError/quotaExceeded(address:)`` when a copy would pass a recipient's quota,
    ///   ``MailStoreError/keywordLimit(_:)`` when `keywords` pass a cap; what the arrivals observer throws.
    public func deliver(
        _ message: NewMailMessage, to recipients: [Recipient], folder: MailFolder, keywords: Set<String> = [],
        isRead: Bool = false, origin: MailOrigin = .received, now: Int64
    ) async throws -> [String] {
        defer { changes.announce(recipients.map(\.address)) }
        return try await database.write { connection in
            try connection.transaction {
                try recipients.map { recipient in
                    try deliver(
                        message, to: recipient, folder: folder, keywords: keywords, isRead: isRead, origin: origin, now: now,
                        on: connection)
                }
            }
        }
    }

    /// Stores one copy of `message` for `recipient` on `connection`, inside the caller's transaction (the outbound
    /// queue's completion puts a bounce in the sender's inbox so): the quota checked, a held inbox's copy handed to
    /// ``arrivals`` on the same connection. Returns the new id.
    /// - Warning: nothing is announced: once the caller's transaction commits, call ``MailChanges/announce(_:)`` on
    ///   ``changes`` with the address, or waiters learn of the copy only at their next look.
    /// - Throws: ``MailStoreError/quotaExceeded(address:)`` or ``MailStoreError/keywordLimit(_:)`` (nothing
    ///   written); storage errors; what the arrivals observer throws.
    public func deliver(
        _ message: NewMailMessage, to recipient: Recipient, folder: MailFolder, keywords: Set<String> = [],
        isRead: Bool = false, origin: MailOrigin = .received, now: Int64, on connection: any SQLConnection
    ) throws -> String {
        try copy(
            message, to: recipient, folder: folder, keywords: keywords, isRead: isRead, origin: origin, now: now,
            on: connection
        ).id
    }

    /// ``deliver(_:to:folder:keywords:isRead:origin:now:on:)``, answering with the copy's thread as well.
    func copy(
        _ message: NewMailMessage, to recipient: Recipient, folder: MailFolder, keywords: Set<String>,
        isRead: Bool, origin: MailOrigin, now: Int64, on connection: any SQLConnection
    ) throws -> (id: String, threadID: String) {
        let used = try Self.used(recipient.address, connection)
        guard used + Int64(message.raw.count) <= recipient.quota else {
            throw MailStoreError.quotaExceeded(address: recipient.address)
        }
        try checkKeywords(recipient.address, [(nil, keywords)], connection)
        try Self.checkFolder(recipient.address, folder, connection)
        var message = message
        if !message.headerKeywords.isEmpty {
            let known = try Self.addressKeywords(recipient.address, connection)
            message.headerKeywords = keywordLimits.fitting(message.headerKeywords, besides: keywords, known: known)
        }
        let id = UUID().uuidString.lowercased()
        let thread = try Self.insert(
            message, id: id, address: recipient.address, folder: folder, keywords: keywords, isRead: isRead,
            origin: origin, now: now, envelopeTo: recipient.envelopeTo, connection)
        if folder == .inbox, let arrivals, let holder = recipient.holder {
            try arrivals.arrived(
                MailArrival(
                    messageID: id, address: recipient.address, holder: holder, fromJSON: Self.json(message.from),
                    envelopeFrom: message.envelopeFrom, subject: message.subject, preview: message.preview,
                    size: Int64(message.raw.count), receivedAt: now,
                    arrivalOrder: try connection.query(
                        "SELECT received_seq FROM mail_messages WHERE id = ?", [.text(id)]
                    ).first?.int("received_seq") ?? 0),
                in: connection)
        }
        return (id, thread)
    }

    /// Bytes `address` holds: mail in every folder and its unexpired uploads.
    public func used(address: String) async throws -> Int64 {
        try await database.read { try Self.used(address, $0) }
    }

    /// A page (1-based) of `address`'s messages in `folder`, newest first.
    public func page(address: String, folder: MailFolder = .inbox, page: Int, perPage: Int = 30) async throws
        -> [MailSummary]
    {
        let offset = Int64(max(0, page - 1)) * Int64(perPage)
        return try await database.read { connection in
            try connection.query(
                """
                SELECT \(Self.summaryColumns) FROM mail_messages WHERE address = ? AND folder = ?
                    ORDER BY received_at DESC, received_seq DESC LIMIT ? OFFSET ?
                """,
                [.text(address), .text(folder.rawValue), .integer(Int64(perPage)), .integer(offset)]
            ).compactMap(Self.summary)
        }
    }

    /// The oldest unread message in `address`'s inbox, nil when every message was read.
    public func oldestUnread(address: String) async throws -> MailSummary? {
        try await database.read { connection in
            try connection.query(
                """
                SELECT \(Self.summaryColumns) FROM mail_messages WHERE address = ? AND folder = 'inbox' AND is_read = 0
                    ORDER BY received_at, received_seq LIMIT 1
                """, [.text(address)]
            ).first.flatMap(Self.summary)
        }
    }

    /// The message `id` of `address`, nil when it has none such.
    public func message(address: String, id: String) async throws -> MailMessageRecord? {
        try await messages(address: address, ids: [id])[id]
    }

    /// The messages of `ids` that `address` has, by id: two queries however many ids (SQLite binds up to 32,766
    /// values; JMAP asks for at most `maxObjectsInGet`).
    public func messages(address: String, ids: [String]) async throws -> [String: MailMessageRecord] {
        let ids = Array(Set(ids))
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        // By primary key: on SQLite `+address` keeps the planner off the address indexes, which would scan every
        // message of the address (PostgreSQL's planner, which has no unary + on text, picks the key itself).
        let addressColumn = database.dialect == .sqlite ? "+address" : "address"
        return try await database.read { connection in
            try connection.readTransaction {
                let rows = try connection.query(
                    "SELECT \(Self.detailColumns) FROM mail_messages WHERE id IN (\(marks)) AND \(addressColumn) = ?",
                    ids.map(SQLValue.text) + [.text(address)])
                var found: [String: MailMessageRecord] = [:]
                for record in try Self.records(rows, connection) { found[record.summary.id] = record }
                return found
            }
        }
    }

    /// The records of `rows` (read with ``detailColumns``), in their order, with their attachments' descriptions.
    static func records(_ rows: [SQLRow], _ connection: any SQLConnection) throws -> [MailMessageRecord] {
        let ids = rows.compactMap { $0.text("id") }
        var attachments: [String: [MailAttachmentInfo]] = [:]
        if !ids.isEmpty {
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            for row in try connection.query(
                """
                SELECT message_id, position, filename, content_type, content_id, disposition, size
                    FROM mail_attachments WHERE message_id IN (\(marks)) ORDER BY message_id, position
                """, ids.map(SQLValue.text))
            {
                if let id = row.text("message_id"), let info = Self.attachmentInfo(row) {
                    attachments[id, default: []].append(info)
                }
            }
        }
        return rows.compactMap { row in
            guard let summary = Self.summary(row) else { return nil }
            return MailMessageRecord(
                summary: summary, to: Self.addresses(row.text("to_json")),
                cc: Self.addresses(row.text("cc_json")), bcc: Self.addresses(row.text("bcc_json")),
                replyTo: Self.addresses(row.text("reply_to_json")), messageID: row.text("message_id"),
                inReplyTo: Self.strings(row.text("in_reply_to")), references: Self.strings(row.text("refs")),
                sentAt: row.int("sent_at"), textBody: row.text("text_body"), htmlBody: row.text("html_body"),
                attachments: attachments[summary.id] ?? [])
        }
    }

    /// The raw RFC 5322 bytes of message `id` of `address`.
    public func raw(address: String, id: String) async throws -> [UInt8]? {
        try await database.read { connection in
            try connection.query(
                "SELECT raw FROM mail_messages WHERE address = ? AND id = ?", [.text(address), .text(id)]
            ).first?.blob("raw")
        }
    }

    /// Where message `id` of `address` came from; nil when `address` has no such message.
    public func origin(address: String, id: String) async throws -> MailOrigin? {
        try await database.read { connection in
            try connection.query(
                "SELECT origin FROM mail_messages WHERE address = ? AND id = ?", [.text(address), .text(id)]
            ).first?.text("origin").flatMap(MailOrigin.init(rawValue:))
        }
    }

    /// Attachment `position` of message `id` of `address`: its description and decoded bytes.
    public func attachment(address: String, id: String, position: Int) async throws -> (MailAttachmentInfo, [UInt8])? {
        try await database.read { connection in
            guard let row = try connection.query(
                """
                SELECT a.position, a.filename, a.content_type, a.content_id, a.disposition, a.size, a.data
                    FROM mail_attachments a JOIN mail_messages m ON m.id = a.message_id
                    WHERE m.address = ? AND m.id = ? AND a.position = ?
                """, [.text(address), .text(id), .integer(Int64(position))]
            ).first, let info = Self.attachmentInfo(row), let data = row.blob("data") else { return nil }
            return (info, data)
        }
    }

    /// Marks messages of `address` read, or unread when `read` is false: those of `ids`, or every one when `ids` is
    /// nil. Returns how many changed (a message already so is not counted); the address's waiters hear of it only
    /// when one did.
    public func markRead(address: String, ids: [String]?, read: Bool = true) async throws -> Int {
        try await mark(MailSelection(.address(address), ids.map(MailFilter.ids) ?? .all([])), read: read).count
    }

    /// Whether `address` has message `id` (read or not).
    public func exists(address: String, id: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query(
                "SELECT 1 FROM mail_messages WHERE address = ? AND id = ?", [.text(address), .text(id)]
            ).isEmpty
        }
    }

    /// Deletes every message of `address` and their attachments; returns how many there were.
    public func deleteAll(address: String) async throws -> Int {
        try await delete(.everything(of: address)).count
    }

    /// Deletes message `id` of `address` and its attachments; false when there was none.
    public func delete(address: String, id: String) async throws -> Bool {
        try await !delete(.message(id, of: address)).isEmpty
    }

    // MARK: rows

    static let summaryColumns =
        """
        id, address, folder, envelope_from, from_json, subject, preview, size, is_read, received_at, thread_id, \
        keywords, envelope_to
        """
    static let detailColumns =
        summaryColumns
        + ", to_json, cc_json, bcc_json, reply_to_json, message_id, in_reply_to, refs, sent_at, text_body, html_body"

    /// Bytes `address` holds: its mail and the blobs it uploaded (which expire, see ``blobLifetime``).
    static func used(_ address: String, _ connection: any SQLConnection) throws -> Int64 {
        try connection.query(
            """
            SELECT (SELECT COALESCE(SUM(size), 0) FROM mail_messages WHERE address = ?)
                + (SELECT COALESCE(SUM(size), 0) FROM mail_blobs WHERE address = ?) AS used
            """, [.text(address), .text(address)]
        ).first?.int("used") ?? 0
    }

    /// Inserts `message` as `id` at `address`; returns its thread (the thread of a message here it answers, else its
    /// own id).
    @discardableResult
    static func insert(
        _ message: NewMailMessage, id: String, address: String, folder: MailFolder, keywords: Set<String>,
        isRead: Bool, origin: MailOrigin = .received, now: Int64, envelopeTo: [String] = [],
        _ connection: any SQLConnection
    ) throws -> String {
        let thread = try threadID(of: message, address: address, connection) ?? id
        _ = try connection.run(
            """
            INSERT INTO mail_messages (id, address, folder, envelope_from, from_json, to_json, cc_json, reply_to_json,
                subject, message_id, in_reply_to, refs, sent_at, text_body, html_body, preview, size, received_at, raw,
                thread_id, keywords, is_read, bcc_json, envelope_to, origin, received_seq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                    \(nextArrival(connection.dialect)))
            """,
            [
                .text(id), .text(address), .text(folder.rawValue), .text(message.envelopeFrom),
                .text(json(message.from)), .text(json(message.to)), .text(json(message.cc)),
                .text(json(message.replyTo)), optional(message.subject), optional(message.messageID),
                .text(json(message.inReplyTo)), .text(json(message.references)),
                message.sentAt.map(SQLValue.integer) ?? .null, optional(message.textBody),
                optional(message.htmlBody), .text(message.preview), .integer(Int64(message.raw.count)),
                .integer(now), .blob(message.raw), .text(thread),
                .text(keywordsJSON(keywords.union(message.headerKeywords))),
                .integer(isRead ? 1 : 0), .text(json(message.bcc)), optional(MailSummary.envelopeColumn(envelopeTo)),
                .text(origin.rawValue),
            ])
        if let extraction = message.extraction { try insertExtraction(extraction, id: id, connection) }
        for (position, attachment) in message.attachments.enumerated() {
            _ = try connection.run(
                """
                INSERT INTO mail_attachments (message_id, position, filename, content_type, content_id, disposition,
                    size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(id), .integer(Int64(position)), optional(attachment.filename), .text(attachment.contentType),
                    optional(attachment.contentID), optional(attachment.disposition),
                    .integer(Int64(attachment.data.count)), .blob(attachment.data),
                ])
        }
        return thread
    }

    /// The next value of the store-wide arrival counter (`received_seq`, migration 0028), which breaks ties between
    /// messages received in the same second: SQLite has one writer at a time, so the largest value plus one is
    /// unique (and found on an index); PostgreSQL's inserts share a sequence instead.
    static func nextArrival(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: return "(SELECT COALESCE(MAX(received_seq), 0) + 1 FROM mail_messages)"
        case .postgres: return "nextval('mail_messages_received_seq')"
        }
    }

    /// The thread of the newest message at `address` that `message` answers or refers to, nil when none is here.
    private static func threadID(of message: NewMailMessage, address: String, _ connection: any SQLConnection) throws
        -> String?
    {
        let parents = Array(Set(message.inReplyTo + message.references))
        guard !parents.isEmpty else { return nil }
        let marks = Array(repeating: "?", count: parents.count).joined(separator: ", ")
        return try connection.query(
            """
            SELECT thread_id FROM mail_messages WHERE address = ? AND message_id IN (\(marks))
                ORDER BY received_at DESC, received_seq DESC LIMIT 1
            """, [.text(address)] + parents.map(SQLValue.text)
        ).first?.text("thread_id")
    }

    /// Keywords as stored: a JSON object of `true`s, `$seen` left out (`is_read` holds it).
    static func keywordsJSON(_ keywords: Set<String>) -> String {
        json(Dictionary(uniqueKeysWithValues: keywords.subtracting(["$seen"]).map { ($0, true) }))
    }

    /// The keywords a stored `keywords` column names (an object of keyword to `true`, as ``keywordsJSON(_:)`` writes
    /// it), sorted; a member whose value is not `true` is passed over, and none is read from a column that is not a
    /// JSON object. Read for every message of a mailbox an IMAP session looks at, so parsed with the strict parser of
    /// JSON objects rather than a `Decodable` decoder (issue 84: 19% of a look at 50,000).
    static func keywords(_ text: String?) -> [String] {
        guard let text, text != "{}", case .object(let members)? = try? JSONValue.parse(Array(text.utf8)) else {
            return []
        }
        return members.compactMap { key, value in value.boolValue == true ? key : nil }.sorted()
    }

    static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }

    static func json<T: Encodable>(_ value: T) -> String {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    /// The addresses of a stored `*_json` column (`from_json`, `to_json`, ...); empty when there is none.
    public static func addresses(_ text: String?) -> [MailAddress] {
        text.flatMap { try? JSONDecoder().decode([MailAddress].self, from: Data($0.utf8)) } ?? []
    }

    private static func strings(_ text: String?) -> [String] {
        text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
    }

    static func summary(_ row: SQLRow) -> MailSummary? {
        guard let id = row.text("id"), let address = row.text("address"),
            let folder = row.text("folder").flatMap(MailFolder.init(rawValue:)), let size = row.int("size"),
            let received = row.int("received_at")
        else { return nil }
        return MailSummary(
            id: id, address: address, folder: folder, envelopeFrom: row.text("envelope_from") ?? "",
            from: addresses(row.text("from_json")), subject: row.text("subject"), preview: row.text("preview") ?? "",
            size: size, isRead: row.int("is_read") == 1, receivedAt: received, threadID: row.text("thread_id") ?? id,
            keywords: keywords(row.text("keywords")), envelopeTo: MailSummary.envelopeRecipients(row.text("envelope_to")))
    }

    static func attachmentInfo(_ row: SQLRow) -> MailAttachmentInfo? {
        guard let position = row.int("position"), let type = row.text("content_type"), let size = row.int("size")
        else { return nil }
        return MailAttachmentInfo(
            position: Int(position), filename: row.text("filename"), contentType: type,
            contentID: row.text("content_id"), disposition: row.text("disposition"), size: size)
    }
}
