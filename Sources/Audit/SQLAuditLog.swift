import Storage

/// The audit trail in the `audit_events` table (migration 0032), on SQLite or PostgreSQL.
public final class SQLAuditLog: AuditLog {
    let database: any SQLDatabase

    /// - Parameter database: a database with migration 0032 applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func record(_ event: AuditEvent) async throws {
        try await database.write { try Self.insert(event, $0) }
    }

    /// Stores `event` on `connection` (the command line's synchronous path).
    public static func insert(_ event: AuditEvent, _ connection: any SQLConnection) throws {
        try connection.insert(row(event))
    }

    /// `event`'s row, for a write that stores it with its own (``SQLConnection/insert(_:then:)``: on PostgreSQL one
    /// statement with the row it records).
    public static func row(_ event: AuditEvent) -> SQLInsert {
        SQLInsert(
            into: "audit_events",
            [
                "time": .integer(event.time), "actor_kind": .text(event.actorKind.rawValue),
                "actor_id": .text(event.actorID), "owner_id": event.ownerID.map(SQLValue.text) ?? .null,
                "action": .text(event.action.rawValue), "target": .text(event.target),
                "client_address": event.clientAddress.map(SQLValue.text) ?? .null,
                "details": event.details.map(SQLValue.text) ?? .null,
            ])
    }

    public func events(since: Int64?, ownerID: String?, limit: Int) async throws -> [AuditEvent] {
        try await database.read { try Self.events($0, since: since, ownerID: ownerID, limit: limit) }
    }

    /// ``events(since:ownerID:limit:)`` on `connection`: newest first (ties by insertion order); with `action`, only
    /// the events of that action.
    public static func events(
        _ connection: any SQLConnection, since: Int64?, ownerID: String?, action: AuditAction? = nil, limit: Int
    ) throws -> [AuditEvent] {
        var conditions: [String] = []
        var bindings: [SQLValue] = []
        if let action {
            conditions.append("action = ?")
            bindings.append(.text(action.rawValue))
        }
        if let since {
            conditions.append("time >= ?")
            bindings.append(.integer(since))
        }
        if let ownerID {
            conditions.append("owner_id = ?")
            bindings.append(.text(ownerID))
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        bindings.append(.integer(Int64(max(0, limit))))
        return try connection.query(
            """
            SELECT time, actor_kind, actor_id, owner_id, action, target, client_address, details FROM audit_events
            \(filter) ORDER BY time DESC, id DESC LIMIT ?
            """, bindings
        ).compactMap(event)
    }

    public func purge(olderThan cutoff: Int64) async throws -> Int {
        try await database.write { try Self.purge($0, olderThan: cutoff) }
    }

    /// Deletes events older than `cutoff` on `connection`.
    public static func purge(_ connection: any SQLConnection, olderThan cutoff: Int64) throws -> Int {
        try connection.run("DELETE FROM audit_events WHERE time < ?", [.integer(cutoff)])
    }

    /// Deletes the events past the retention: older than `days` days before `now` (`POSTERN_AUDIT_DAYS`).
    public static func purgeExpired(_ connection: any SQLConnection, now: Int64, days: Int) throws -> Int {
        try purge(connection, olderThan: now - Int64(days) * 86_400)
    }

    private static func event(_ row: SQLRow) -> AuditEvent? {
        guard let time = row.int("time"), let kind = row.text("actor_kind").flatMap(AuditActorKind.init(rawValue:)),
            let actor = row.text("actor_id"), let action = row.text("action").flatMap(AuditAction.init(rawValue:)),
            let target = row.text("target")
        else { return nil }
        return AuditEvent(
            time: time, actorKind: kind, actorID: actor, ownerID: row.text("owner_id"), action: action, target: target,
            clientAddress: row.text("client_address"), details: row.text("details"))
    }
}
