/// One row's `INSERT` as a value: its table, its columns and their bound values. A store that writes a row on behalf
/// of another (an audit line beside what it records) hands the row over as this value rather than as a closure over a
/// connection, so that the write it joins may run it alone or, on PostgreSQL, as one statement with its own
/// (``SQLConnection/insert(_:then:)``).
public struct SQLInsert: Sendable, Equatable {
    /// The table written to; a name from the code, never from input.
    public let table: String
    /// The columns set, in the order of ``values``; names from the code, never from input.
    public let columns: [String]
    /// The values bound, one per column.
    public let values: [SQLValue]

    /// The row of `table` with `row`'s columns and values, in that order.
    public init(into table: String, _ row: KeyValuePairs<String, SQLValue>) {
        self.table = table
        columns = row.map(\.key)
        values = row.map(\.value)
    }

    /// `INSERT INTO table (columns) VALUES (?, ...)`.
    public var sql: String {
        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
    }

    /// One `?` per column.
    var placeholders: String { Array(repeating: "?", count: columns.count).joined(separator: ", ") }
}

extension SQLConnection {
    /// Inserts `row`; returns the number of rows written (1).
    /// - Throws: storage errors (a constraint, the connection).
    @discardableResult
    public func insert(_ row: SQLInsert) throws -> Int {
        try run(row.sql, row.values)
    }

    /// Inserts `first` and then `second`, both or neither.
    ///
    /// On PostgreSQL one statement, one round trip: `WITH first AS (INSERT ... RETURNING 1) INSERT INTO second's table
    /// ... SELECT ... FROM first`, atomic as every statement is, `second` written only with `first`. On SQLite, whose
    /// writes are local, the two statements in a transaction of their own (a savepoint of ``BatchedWriter``'s batch).
    /// - Warning: not inside a `transaction { }` on SQLite (transactions do not nest: `.misuse`); there, insert each.
    /// - Throws: storage errors; nothing is written then.
    public func insert(_ first: SQLInsert, then second: SQLInsert) throws {
        switch dialect {
        case .postgres:
            try run(
                """
                WITH first AS (\(first.sql) RETURNING 1)
                INSERT INTO \(second.table) (\(second.columns.joined(separator: ", "))) \
                SELECT \(second.placeholders) FROM first
                """, first.values + second.values)
        case .sqlite:
            try transaction {
                try insert(first)
                try insert(second)
            }
        }
    }
}
