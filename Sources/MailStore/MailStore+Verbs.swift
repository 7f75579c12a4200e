import Storage

/// The store's three verbs over one ``MailSelection`` (issue 82 item 2): list, mark and delete, each returning what it
/// touched. Every write moves each touched address's JMAP state through the change log's triggers and wakes that
/// address's waiters after the commit, as any other write of the store does; a sandbox's record of a deleted message
/// goes with it (migration 0067's trigger).
extension MailStore {
    /// The selected messages' summaries, in the selection's order and page.
    public func list(_ selection: MailSelection) async throws -> [MailSummary] {
        let (sql, values) = Self.selecting(Self.summaryColumns, selection, database.dialect)
        return try await database.read { connection in try connection.query(sql, values).compactMap(Self.summary) }
    }

    /// As ``list(_:)``, each message with every parsed field (a listing that shows recipients).
    public func listRecords(_ selection: MailSelection) async throws -> [MailMessageRecord] {
        let (sql, values) = Self.selecting(Self.detailColumns, selection, database.dialect)
        return try await database.read { connection in
            try connection.readTransaction { try Self.records(connection.query(sql, values), connection) }
        }
    }

    /// Marks the selected messages read (or unread); returns the ids that changed (one already so is not touched).
    public func mark(_ selection: MailSelection, read: Bool) async throws -> [String] {
        try await writing(selection, where: "is_read = \(read ? 0 : 1)") { chunk, connection in
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            _ = try connection.run(
                "UPDATE mail_messages SET is_read = ? WHERE id IN (\(marks))",
                [.integer(read ? 1 : 0)] + chunk.map(SQLValue.text))
        }
    }

    /// Deletes the selected messages with their attachments; returns their ids.
    public func delete(_ selection: MailSelection) async throws -> [String] {
        try await writing(selection) { chunk, connection in
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            _ = try connection.run("DELETE FROM mail_messages WHERE id IN (\(marks))", chunk.map(SQLValue.text))
        }
    }

    /// Reads the ids (and addresses) of the selected messages that also pass `extra`, and runs `write` over them in
    /// runs of ``chunks(_:size:)``, all in one transaction; announces the addresses touched after the commit.
    private func writing(
        _ selection: MailSelection, where extra: String? = nil,
        _ write: @escaping @Sendable ([String], any SQLConnection) throws -> Void
    ) async throws -> [String] {
        let (sql, values) = Self.selecting("id, address", selection, database.dialect, extra: extra)
        let (touched, addresses) = try await database.write { connection in
            try connection.transaction {
                let rows = try connection.query(sql, values)
                let ids = rows.compactMap { $0.text("id") }
                for chunk in Self.chunks(ids) { try write(chunk, connection) }
                return (ids, Set(rows.compactMap { $0.text("address") }))
            }
        }
        changes.announce(Array(addresses))
        return touched
    }

    /// The statement that reads `columns` of the selected messages (also passing `extra`), ordered and paged.
    static func selecting(
        _ columns: String, _ selection: MailSelection, _ dialect: SQLDialect, extra: String? = nil
    ) -> (sql: String, values: [SQLValue]) {
        var (condition, values) = scoped(selection.scope, selection.filter, dialect)
        if let extra { condition += " AND \(extra)" }
        var sql = "SELECT \(columns) FROM mail_messages WHERE \(condition) ORDER BY \(selection.order.sql)"
        if selection.limit != nil || selection.start > 0 {
            // LIMIT -1 is SQLite's "no limit"; PostgreSQL takes LIMIT ALL, spelt here as NULL.
            let limit: SQLValue = selection.limit.map { .integer(Int64(max(0, $0))) } ?? (dialect == .sqlite ? .integer(-1) : .null)
            sql += " LIMIT ? OFFSET ?"
            values += [limit, .integer(Int64(max(0, selection.start)))]
        }
        return (sql, values)
    }
}
