import Foundation
import Storage

/// The lease every durable queue of Postern's holds its rows by (the webhook events', the outbound recipients'), one
/// way: a claim sets a deadline and a token of its own on the due rows it picks (on PostgreSQL picked
/// `FOR UPDATE SKIP LOCKED`, so concurrent claims of several instances never share a row; SQLite serializes writes);
/// the work is recorded only under that token, so an attempt that outlived its lease, whose rows another claim took,
/// records nothing; a row given back has no lease; and the queue's next due time is the later of a row's next attempt
/// and its lease. Times are the queue's own unit (the webhook queue's milliseconds, the outbound queue's seconds), the
/// same in both columns.
public struct LeasedRows: Sendable {
    /// The queue's table.
    public let table: String
    /// The column of when a row is next due.
    public let nextAttempt: String
    /// The column of the lease's deadline (0 when not leased).
    public let leaseUntil: String
    /// The column of the claim's token (NULL when not leased).
    public let token = "lease_token"

    /// - Parameters: see the properties.
    public init(table: String, nextAttempt: String, leaseUntil: String) {
        self.table = table
        self.nextAttempt = nextAttempt
        self.leaseUntil = leaseUntil
    }

    /// A new claim's token: random, never another claim's.
    public static func newToken() -> String {
        UUID().uuidString.lowercased()
    }

    /// What makes a claim's pick skip rows another transaction is claiming: `FOR UPDATE [OF alias] SKIP LOCKED` on
    /// PostgreSQL, nothing on SQLite.
    public static func skipLocked(_ dialect: SQLDialect, of alias: String? = nil) -> String {
        guard dialect == .postgres else { return "" }
        return " FOR UPDATE" + (alias.map { " OF " + $0 } ?? "") + " SKIP LOCKED"
    }

    /// The condition of a row due and not leased (two bindings: now, now), its columns under `alias` when given.
    public func isDue(_ alias: String? = nil) -> String {
        let prefix = alias.map { $0 + "." } ?? ""
        return "\(prefix)\(nextAttempt) <= ? AND \(prefix)\(leaseUntil) <= ?"
    }

    /// The assignments that give a row's lease back.
    public var released: String { "\(leaseUntil) = 0, \(token) = NULL" }

    /// The condition of a row `token` still holds (one binding: the token).
    public var heldBy: String { "\(token) = ?" }

    /// Leases to `token` until `until` the rows whose ids `picked` selects (with `bindings`), those among them still
    /// due at `now`; `picked` is locked as ``skipLocked(_:of:)`` says (`alias`: the table it locks, when it joins
    /// several). Returns how many rows it leased.
    /// - Throws: storage errors.
    @discardableResult
    public func lease(
        _ picked: String, _ bindings: [SQLValue], lockingOnly alias: String? = nil, to token: String, until: Int64,
        now: Int64, _ connection: any SQLConnection
    ) throws -> Int {
        try connection.run(
            """
            UPDATE \(table) SET \(leaseUntil) = ?, \(self.token) = ?
            WHERE id IN (\(picked)\(Self.skipLocked(connection.dialect, of: alias))) AND \(isDue())
            """, [.integer(until), .text(token)] + bindings + [.integer(now), .integer(now)])
    }

    /// When the next row that `condition` keeps (over `from`, the table or a join naming it `alias`) falls due or its
    /// lease runs out, nil when none waits.
    /// - Throws: storage errors.
    public func nextDue(
        from: String? = nil, alias: String? = nil, where condition: String, _ connection: any SQLConnection
    ) throws -> Int64? {
        let prefix = alias.map { $0 + "." } ?? ""
        let lease = prefix + leaseUntil, next = prefix + nextAttempt
        return try connection.query(
            """
            SELECT MIN(CASE WHEN \(lease) > \(next) THEN \(lease) ELSE \(next) END) AS due FROM \(from ?? table)
            WHERE \(condition)
            """
        ).first?.int("due")
    }
}
