import Foundation
import Storage

/// The lease every durable queue of Postern's holds its rows by (the webhook events', the outbound recipients'), one
/// way: a claim sets a deadline and a token of its own on the due rows it picks (on PostgreSQL picked
/// `FOR UPDATE SKIP LOCKED`, so concurrent claims of several instances never share a row; SQLite serializes writes);
/// the work is recorded only under that token, so an attempt that outlived its lease, whose rows another claim took,
/// records nothing; a row given back has no lease; and the queue's next due time is the later of a row's next attempt
/// and its lease. Times are the queue's own unit (the webhook queue's milliseconds, the outbound queue's seconds), the
/// same in both columns.
///
/// The queue says what it is in types, never in SQL text: its table and columns are `StaticString`s (names written in
/// the source, never text made at run time), the rows it serves are ``Match``es on its columns and on a ``Parent``
/// row, each value bound; this type writes every statement of the lease itself (issue 67 item 5).
public struct LeasedRows: Sendable {
    /// A condition on a column: the row's `column` equals `value`, bound as a parameter.
    public struct Match: Sendable {
        /// The column, named in the source.
        public let column: StaticString
        /// The value it must hold.
        public let value: SQLValue

        /// - Parameters: see the properties.
        public init(_ column: StaticString, _ value: SQLValue) {
            self.column = column
            self.value = value
        }
    }

    /// The row of another table a queue's row hangs off (a webhook event's webhook) and what that row must hold for
    /// the queue's row to be served: the queue's `key` column holds the parent's `id`.
    public struct Parent: Sendable {
        /// The parent's table.
        public let table: StaticString
        /// The queue's column that holds the parent's `id`.
        public let key: StaticString
        /// What the parent must hold.
        public let match: Match

        /// - Parameters: see the properties.
        public init(table: StaticString, key: StaticString, match: Match) {
            self.table = table
            self.key = key
            self.match = match
        }
    }

    /// The queue's table.
    public let table: StaticString
    /// The column of when a row is next due.
    public let nextAttempt: StaticString
    /// The column of the lease's deadline (0 when not leased).
    public let leaseUntil: StaticString
    /// What a row of the table must hold to wait in the queue (the outbound recipients' `status = 'queued'`).
    public let waiting: [Match]
    /// The parent row a waiting row needs, when it needs one (the webhook events' active webhook).
    public let parent: Parent?
    /// The column of the claim's token (NULL when not leased).
    static let token = "lease_token"

    /// - Parameters: see the properties.
    public init(
        table: StaticString, nextAttempt: StaticString, leaseUntil: StaticString, waiting: [Match] = [],
        parent: Parent? = nil
    ) {
        self.table = table
        self.nextAttempt = nextAttempt
        self.leaseUntil = leaseUntil
        self.waiting = waiting
        self.parent = parent
    }

    /// A new claim's token: random, never another claim's.
    public static func newToken() -> String {
        UUID().uuidString.lowercased()
    }

    /// The assignments that give a row's lease back.
    public var released: String { "\(leaseUntil) = 0, \(Self.token) = NULL" }

    /// The condition of a row `token` still holds (one binding: the token).
    public var heldBy: String { "\(Self.token) = ?" }

    /// Leases to `token` until `until` the waiting rows due at `now` that also hold `matches`, the first `limit` of
    /// them (every one when nil) in the order of `orderedBy` (the queue's columns). On PostgreSQL the rows are picked
    /// `FOR UPDATE SKIP LOCKED`, so a concurrent claim takes others. Returns how many rows it leased.
    /// - Throws: storage errors.
    @discardableResult
    public func lease(
        where matches: [Match] = [], orderedBy: [StaticString] = [], limit: Int? = nil, to token: String,
        until: Int64, now: Int64, _ connection: any SQLConnection
    ) throws -> Int {
        let (picked, bindings) = pick(["id"], where: matches, orderedBy: orderedBy, limit: limit, now: now,
            connection.dialect)
        return try connection.run(
            """
            UPDATE \(table) SET \(leaseUntil) = ?, \(Self.token) = ?
            WHERE id IN (\(picked)) AND \(nextAttempt) <= ? AND \(leaseUntil) <= ?
            """, [.integer(until), .text(token)] + bindings + [.integer(now), .integer(now)])
    }

    /// The `columns` of the waiting rows due at `now` that also hold `matches`, the first `limit` (every one when nil)
    /// in the order of `orderedBy`, locked as ``lease(where:orderedBy:limit:to:until:now:_:)`` locks them (inside the
    /// caller's transaction, so that it leases them next). Each row's values are read by the columns' names.
    /// - Throws: storage errors.
    public func due(
        _ columns: [StaticString], where matches: [Match] = [], orderedBy: [StaticString] = [], limit: Int? = nil,
        now: Int64, _ connection: any SQLConnection
    ) throws -> [SQLRow] {
        let (picked, bindings) = pick(columns, where: matches, orderedBy: orderedBy, limit: limit, now: now,
            connection.dialect)
        return try connection.query(picked, bindings)
    }

    /// When the next waiting row falls due or its lease runs out, nil when none waits.
    /// - Throws: storage errors.
    public func nextDue(_ connection: any SQLConnection) throws -> Int64? {
        let (from, condition, bindings) = scope()
        return try connection.query(
            """
            SELECT MIN(CASE WHEN q.\(leaseUntil) > q.\(nextAttempt) THEN q.\(leaseUntil) ELSE q.\(nextAttempt) END)
                AS due FROM \(from) WHERE \(condition)
            """, bindings
        ).first?.int("due")
    }

    /// The waiting rows (the table as `q`, joined to its parent as `p`): the FROM, the condition and its bindings.
    private func scope(_ matches: [Match] = []) -> (String, String, [SQLValue]) {
        var from = "\(table) q"
        var conditions = (waiting + matches).map { "q.\($0.column) = ?" }
        var bindings = (waiting + matches).map(\.value)
        if let parent {
            from += " JOIN \(parent.table) p ON p.id = q.\(parent.key)"
            conditions.append("p.\(parent.match.column) = ?")
            bindings.append(parent.match.value)
        }
        return (from, conditions.isEmpty ? "1 = 1" : conditions.joined(separator: " AND "), bindings)
    }

    /// The SELECT of ``due(_:where:orderedBy:limit:now:_:)`` and its bindings.
    private func pick(
        _ columns: [StaticString], where matches: [Match], orderedBy: [StaticString], limit: Int?, now: Int64,
        _ dialect: SQLDialect
    ) -> (String, [SQLValue]) {
        let (from, condition, bindings) = scope(matches)
        var sql = "SELECT " + columns.map { "q.\($0) AS \($0)" }.joined(separator: ", ") + " FROM \(from) WHERE "
            + condition + " AND q.\(nextAttempt) <= ? AND q.\(leaseUntil) <= ?"
        if !orderedBy.isEmpty { sql += " ORDER BY " + orderedBy.map { "q.\($0)" }.joined(separator: ", ") }
        if limit != nil { sql += " LIMIT ?" }
        if dialect == .postgres { sql += " FOR UPDATE OF q SKIP LOCKED" }
        return (sql, bindings + [.integer(now), .integer(now)] + (limit.map { [.integer(Int64($0))] } ?? []))
    }
}
