import Storage

/// One page of a mailbox's list as one read saw it: the mailbox's state, the rows that pass a filter from a position
/// (newest first), and how many pass in all. What the web inbox's list draws: each row's summary and whether the
/// message has attachments, never its bodies.
public struct MailListPage: Sendable, Equatable {
    /// One row of the list.
    public struct Row: Sendable, Equatable {
        /// The message's summary (from, subject, preview, size, read, received).
        public var summary: MailSummary
        /// Whether it has attachments (the row's paperclip).
        public var hasAttachments: Bool

        public init(summary: MailSummary, hasAttachments: Bool) {
            self.summary = summary
            self.hasAttachments = hasAttachments
        }
    }

    /// The mailbox's state when the page was read (see ``MailStore/state(address:)``).
    public var state: Int64
    /// The rows, in list order.
    public var rows: [Row]
    /// How many messages pass the filter in all.
    public var total: Int
}

extension MailStore {
    /// The page of `address`'s messages that pass `filter`, newest first, from `position`, at most `limit`: what
    /// ``state(address:)``, ``query(address:filter:sort:position:limit:countTotal:)`` and the summaries of the ids it
    /// finds read, in one read transaction (one trip to the database, one snapshot: the state is the page's own).
    public func listPage(address: String, filter: MailFilter, position: Int, limit: Int) async throws -> MailListPage {
        let dialect = database.dialect
        // By primary key, as in ``messages(address:ids:)``: `+address` keeps SQLite's planner off the address indexes.
        let addressColumn = dialect == .sqlite ? "+address" : "address"
        return try await database.read { connection in
            try connection.readTransaction {
                let state = try Self.state(address: address, connection)
                let (ids, total) = try Self.query(
                    address: address, filter: filter, sort: [], position: position, limit: limit, countTotal: true,
                    dialect: dialect, connection)
                guard !ids.isEmpty else { return MailListPage(state: state, rows: [], total: total ?? 0) }
                let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                var summaries: [String: MailSummary] = [:]
                for row in try connection.query(
                    "SELECT \(Self.summaryColumns) FROM mail_messages WHERE id IN (\(marks)) AND \(addressColumn) = ?",
                    ids.map(SQLValue.text) + [.text(address)])
                {
                    if let summary = Self.summary(row) { summaries[summary.id] = summary }
                }
                let withAttachments = Set(
                    try connection.query(
                        "SELECT DISTINCT message_id FROM mail_attachments WHERE message_id IN (\(marks))",
                        ids.map(SQLValue.text)
                    ).compactMap { $0.text("message_id") })
                let rows = ids.compactMap { id in
                    summaries[id].map { MailListPage.Row(summary: $0, hasAttachments: withAttachments.contains(id)) }
                }
                return MailListPage(state: state, rows: rows, total: total ?? 0)
            }
        }
    }
}
