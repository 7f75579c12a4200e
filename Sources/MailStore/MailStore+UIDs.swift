import Foundation
import Storage

/// A mailbox as IMAP and POP3 number it (migration 0060): its UIDVALIDITY and the UID its next message takes.
public struct MailUIDMailbox: Sendable, Equatable {
    /// Fixed for the mailbox's life: UIDs never go backwards under it.
    public var uidValidity: UInt32
    /// Larger than every UID the mailbox has given.
    public var uidNext: UInt32

    public init(uidValidity: UInt32, uidNext: UInt32) {
        self.uidValidity = uidValidity
        self.uidNext = uidNext
    }
}

/// One message of a mailbox as IMAP lists it: its UID, its id in the store, its keywords (`$seen` included), size and
/// arrival time.
public struct MailUIDEntry: Sendable, Equatable {
    public var uid: UInt32
    public var id: String
    /// JMAP keywords, `$seen` among them when the message is read.
    public var keywords: Set<String>
    public var size: Int64
    /// Unix seconds.
    public var receivedAt: Int64

    public init(uid: UInt32, id: String, keywords: Set<String>, size: Int64, receivedAt: Int64) {
        self.uid = uid
        self.id = id
        self.keywords = keywords
        self.size = size
        self.receivedAt = receivedAt
    }
}

/// The UID view of the one store (issue 70): each message's UID in its folder, assigned by the triggers of
/// `migrations/*/0060_mail_uids.sql` in the transaction that stores or moves it, whatever door writes; and the few
/// writes IMAP needs beyond JMAP's (keywords of many messages at once, moves, copies, deletes in one transaction).
extension MailStore {
    /// `address`'s `folder` as IMAP numbers it, and its messages in UID order, read together. A mailbox nothing was
    /// ever stored in is numbered now (its UIDVALIDITY `now`), so that it answers the same in every later session.
    public func uidSnapshot(address: String, folder: MailFolder, now: Int64) async throws
        -> (mailbox: MailUIDMailbox, entries: [MailUIDEntry])
    {
        let values: [SQLValue] = [.text(address), .text(folder.rawValue)]
        // A read, as every look of every command is; the one write is the numbering of a mailbox never used.
        if let snapshot = try await database.read({ try Self.uidSnapshot(values, connection: $0) }) { return snapshot }
        // A made folder is numbered when it is made: one without a row was deleted, and stays empty and unnumbered.
        guard folder.isFixed else { return (MailUIDMailbox(uidValidity: 1, uidNext: 1), []) }
        let validity = Swift.max(1, Swift.min(now, Int64(UInt32.max)))
        return try await database.write { connection in
            try connection.run(
                """
                INSERT INTO mail_uid_mailboxes (address, folder, uid_validity, uid_next) VALUES (?, ?, ?, 1)
                    ON CONFLICT (address, folder) DO NOTHING
                """, values + [.integer(validity)])
            // The row is there now, inserted or found in this transaction.
            return try Self.uidSnapshot(values, connection: connection)
                ?? (MailUIDMailbox(uidValidity: UInt32(validity), uidNext: 1), [])
        }
    }

    /// The mailbox `values` (address, folder) names and its messages in UID order, in one read transaction; nil when
    /// the mailbox was never numbered.
    static func uidSnapshot(_ values: [SQLValue], connection: any SQLConnection) throws
        -> (mailbox: MailUIDMailbox, entries: [MailUIDEntry])?
    {
        try connection.readTransaction {
            guard let row = try connection.query(
                "SELECT uid_validity, uid_next FROM mail_uid_mailboxes WHERE address = ? AND folder = ?", values
            ).first else { return nil }
            let entries = try connection.query(Self.uidEntries + " ORDER BY u.uid", values).compactMap(Self.uidEntry)
            return (Self.uidMailbox(row, last: entries.last), entries)
        }
    }

    /// The UIDs of `ids` (messages of `address`), by id; a message `address` does not have is left out.
    public func uids(address: String, ids: [String]) async throws -> [String: UInt32] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        return try await database.read { connection in
            var found: [String: UInt32] = [:]
            for row in try connection.query(
                "SELECT message_id, uid FROM mail_uids WHERE address = ? AND message_id IN (\(marks))",
                [.text(address)] + ids.map(SQLValue.text))
            {
                if let id = row.text("message_id"), let uid = row.int("uid") { found[id] = UInt32(clamping: uid) }
            }
            return found
        }
    }

    /// The stored bytes of each of `ids` (messages of `address`) in one read, by id; a message `address` does not have
    /// is left out. For IMAP's FETCH of many messages, which reads them a batch at a time instead of one query each.
    public func raws(address: String, ids: [String]) async throws -> [String: [UInt8]] {
        guard !ids.isEmpty else { return [:] }
        return try await database.read { connection in try Self.raws(address: address, ids: ids, connection) }
    }

    /// The address's state (``state(address:)``) and the stored bytes of `ids` (``raws(address:ids:)``) as of that
    /// state, in one read transaction: one trip to the store for a FETCH whose client is up to date (an mbsync's
    /// `UID FETCH n` per message), where a state read and a bytes read were two.
    public func stateAndRaws(address: String, ids: [String]) async throws -> (state: Int64, raws: [String: [UInt8]]) {
        try await database.read { connection in
            try connection.readTransaction {
                (try Self.state(address: address, connection), try Self.raws(address: address, ids: ids, connection))
            }
        }
    }

    static func raws(address: String, ids: [String], _ connection: any SQLConnection) throws
        -> [String: [UInt8]]
    {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        var found: [String: [UInt8]] = [:]
        // By id alone, the address checked here: with `address = ?` beside the IN list SQLite's planner, once
        // ANALYZE has run, walks the address's index (every message of the mailbox, for each batch) instead of
        // looking each id up by its primary key: the bench's FETCH 1:* of 10,000 envelopes took 5.4 s, not 2.
        for row in try connection.query(
            "SELECT id, address, raw FROM mail_messages WHERE id IN (\(marks))", ids.map(SQLValue.text))
        {
            if let id = row.text("id"), row.text("address") == address, let raw = row.blob("raw") { found[id] = raw }
        }
        return found
    }

    /// Sets the keywords (`$seen` included) of each message of `updates`, in one transaction; returns how many
    /// `address` had. The address's waiters hear of it when one changed.
    /// - Throws: ``MailStoreError/keywordLimit(_:)`` when an update passes a cap (nothing changed).
    public func setKeywords(address: String, _ updates: [(id: String, keywords: Set<String>)]) async throws -> Int {
        guard !updates.isEmpty else { return 0 }
        let changed = try await database.write { connection in
            try connection.transaction {
                try checkKeywords(address, updates.map { ($0.id, $0.keywords) }, connection)
                return try updates.reduce(0) { count, update in
                    count
                        + (try connection.run(
                            "UPDATE mail_messages SET keywords = ?, is_read = ? WHERE address = ? AND id = ?",
                            [
                                .text(Self.keywordsJSON(update.keywords)),
                                .integer(update.keywords.contains("$seen") ? 1 : 0), .text(address), .text(update.id),
                            ]))
                }
            }
        }
        if changed > 0 { changes.announce([address]) }
        return changed
    }

    /// Moves `ids` (messages of `address`) to `folder` in one transaction; each takes the next UID there, one already
    /// in `folder` too (RFC 6851 lets a MOVE to the same mailbox renumber, as Dovecot does). Returns the new UIDs by id
    /// (a message `address` does not have is left out).
    /// - Throws: ``MailFolderError/noSuchFolder`` when `address` has no `folder` (nothing moved).
    public func move(address: String, ids: [String], to folder: MailFolder) async throws -> [String: UInt32] {
        guard !ids.isEmpty else { return [:] }
        defer { changes.announce([address]) }
        try await database.write { connection in
            try connection.transaction {
                try Self.checkFolder(address, folder, connection)
                for id in ids {
                    let values: [SQLValue] = [.text(folder.rawValue), .text(address), .text(id), .text(folder.rawValue)]
                    let moved = try connection.run(
                        "UPDATE mail_messages SET folder = ? WHERE address = ? AND id = ? AND folder <> ?", values)
                    if moved == 0 { try Self.renumber(id, address: address, folder: folder, connection) }
                }
            }
        }
        return try await uids(address: address, ids: ids)
    }

    /// Copies `ids` (messages of `address`) into `folder` with their keywords, attachments and extractions (the codes
    /// and links found at delivery), in one transaction
    /// with the quota checked; each copy takes the next UID there. Returns the copies' UIDs by the original's id.
    /// - Throws: ``MailStoreError/quotaExceeded(address:)``, ``MailFolderError/noSuchFolder`` (nothing copied).
    public func copy(address: String, ids: [String], to folder: MailFolder, quota: Int64) async throws
        -> [String: UInt32]
    {
        guard !ids.isEmpty else { return [:] }
        defer { changes.announce([address]) }
        let copies: [String: String] = try await database.write { connection in
            try connection.transaction {
                try Self.checkFolder(address, folder, connection)
                var copies: [String: String] = [:]
                for id in ids {
                    let copy = UUID().uuidString.lowercased()
                    let size = try connection.query(
                        "SELECT size FROM mail_messages WHERE address = ? AND id = ?", [.text(address), .text(id)]
                    ).first?.int("size")
                    guard let size else { continue }
                    guard try Self.used(address, connection) + size <= quota else {
                        throw MailStoreError.quotaExceeded(address: address)
                    }
                    try connection.run(
                        """
                        INSERT INTO mail_messages (id, address, folder, envelope_from, from_json, to_json, cc_json,
                            reply_to_json, subject, message_id, in_reply_to, refs, sent_at, text_body, html_body, preview,
                            size, received_at, raw, thread_id, keywords, is_read, bcc_json, envelope_to, origin,
                            received_seq)
                        SELECT ?, address, ?, envelope_from, from_json, to_json, cc_json, reply_to_json, subject,
                            message_id, in_reply_to, refs, sent_at, text_body, html_body, preview, size, received_at, raw,
                            thread_id, keywords, is_read, bcc_json, envelope_to, origin,
                            \(Self.nextArrival(connection.dialect))
                            FROM mail_messages WHERE address = ? AND id = ?
                        """, [.text(copy), .text(folder.rawValue), .text(address), .text(id)])
                    try connection.run(
                        """
                        INSERT INTO mail_attachments (message_id, position, filename, content_type, content_id,
                            disposition, size, data)
                        SELECT ?, position, filename, content_type, content_id, disposition, size, data
                            FROM mail_attachments WHERE message_id = ?
                        """, [.text(copy), .text(id)])
                    // Its codes and links with it (issue 85): a copy reads as its original does.
                    try connection.run(
                        """
                        INSERT INTO mail_extractions (message_id, best_code, link_kinds, extraction)
                        SELECT ?, best_code, link_kinds, extraction FROM mail_extractions WHERE message_id = ?
                        """, [.text(copy), .text(id)])
                    copies[id] = copy
                }
                return copies
            }
        }
        let uids = try await uids(address: address, ids: Array(copies.values))
        return copies.compactMapValues { uids[$0] }
    }

    /// Gives `id`, a message of `address` in `folder`, the folder's next UID (nothing when it is not there), and
    /// moves the address's state, so that every session looks again and sees the old UID expunged and the new one.
    private static func renumber(
        _ id: String, address: String, folder: MailFolder, _ connection: any SQLConnection
    ) throws {
        let mailbox: [SQLValue] = [.text(address), .text(folder.rawValue)]
        guard try connection.run(
            """
            UPDATE mail_uid_mailboxes SET uid_next = uid_next + 1 WHERE address = ? AND folder = ?
                AND EXISTS (SELECT 1 FROM mail_messages WHERE id = ? AND address = ? AND folder = ?)
            """, mailbox + [.text(id)] + mailbox) > 0
        else { return }
        try connection.run(
            """
            UPDATE mail_uids SET uid = (SELECT uid_next - 1 FROM mail_uid_mailboxes WHERE address = ? AND folder = ?)
                WHERE message_id = ?
            """, mailbox + [.text(id)])
        try connection.run("UPDATE mail_messages SET keywords = keywords WHERE id = ?", [.text(id)])
    }

    /// Deletes `ids` (messages of `address`) and their attachments in one transaction; returns how many went.
    public func delete(address: String, ids: [String]) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        defer { changes.announce([address]) }
        return try await database.write { connection in
            try connection.transaction {
                try ids.reduce(0) { count, id in
                    count
                        + (try connection.run(
                            "DELETE FROM mail_messages WHERE address = ? AND id = ?", [.text(address), .text(id)]))
                }
            }
        }
    }

    /// The entries (``uidEntry(_:)``) of a mailbox's messages, its address and folder bound; more conditions may
    /// follow.
    static let uidEntries = """
        SELECT u.uid, m.id, m.keywords, m.is_read, m.size, m.received_at FROM mail_uids u
            JOIN mail_messages m ON m.id = u.message_id WHERE u.address = ? AND u.folder = ?
        """

    /// A mailbox's numbering as its `mail_uid_mailboxes` row keeps it, its next UID past `last` (its last message
    /// read with it) in any case.
    static func uidMailbox(_ row: SQLRow, last: MailUIDEntry?) -> MailUIDMailbox {
        let uidNext = Swift.max(row.int("uid_next") ?? 1, Int64(last?.uid ?? 0) + 1)
        return MailUIDMailbox(
            uidValidity: UInt32(clamping: row.int("uid_validity") ?? 1), uidNext: UInt32(clamping: uidNext))
    }

    static func uidEntry(_ row: SQLRow) -> MailUIDEntry? {
        guard let uid = row.int("uid"), let id = row.text("id"), let size = row.int("size"),
            let received = row.int("received_at")
        else { return nil }
        var keywords = Set(Self.keywords(row.text("keywords")))
        if row.int("is_read") == 1 { keywords.insert("$seen") }
        return MailUIDEntry(uid: UInt32(clamping: uid), id: id, keywords: keywords, size: size, receivedAt: received)
    }
}
