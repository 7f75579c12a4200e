import Audit
import Foundation
import JSON
import Logging
import Owners
import PosternApp
import ServerKit
import Storage
import Time

/// `postern audit` and the operator's own entries in the audit trail.
extension Operations {
    /// Why `postern audit` refused its arguments.
    public struct AuditQueryError: Error, CustomStringConvertible, Equatable {
        /// What to tell the operator.
        public let description: String
    }

    /// `postern audit`: one line per event, oldest first (the newest `limit` of those that match), each
    /// `time  action  actor-kind actor-id  target  [owner id]  [from address]  [details]`, every control character
    /// of what was recorded escaped (``AuditText/escaped(_:)``: a line feed typed at a form forges no line); with
    /// `json`, one JSON object a line (``jsonLine(_:)``), the exact text, control characters as `\u` escapes.
    /// - Parameters:
    ///   - since: an RFC 3339 time (`2026-11-01T00:00:00Z`), Unix seconds, or a time ago (`90s`, `10m`, `2h`, `7d`);
    ///     nil for every event kept.
    ///   - ownerEmail: only the events of the owner with this email (their `/owner` page's).
    ///   - limit: most events shown, 1 to 100,000.
    ///   - json: one JSON object a line instead of text.
    ///   - now: Unix seconds, what a time ago counts back from.
    /// - Throws: ``AuditQueryError`` for an unreadable `since`, a bad limit or an email no owner has; storage errors.
    public static func auditLines(
        configuration: PosternConfiguration, since: String?, ownerEmail: String?, limit: Int, json: Bool = false,
        logger: Logger, now: Int64 = unixNow()
    ) async throws -> [String] {
        let start = try since.map { try parseSince($0, now: now) }
        guard (1...100_000).contains(limit) else { throw AuditQueryError(description: "--limit must be 1 to 100000") }
        let database = try migratedDatabase(configuration, logger: logger)
        defer { database.close() }
        var ownerID: String?
        if let ownerEmail {
            let email = OwnerCredentials.normalizedEmail(ownerEmail) ?? ownerEmail
            ownerID = try await database.read { connection in try OwnerStore.ownerID(email: email, connection) }
            guard ownerID != nil else { throw AuditQueryError(description: "no owner has email '\(ownerEmail)'") }
        }
        let events = try await SQLAuditLog(database: database).events(since: start, ownerID: ownerID, limit: limit)
        return events.reversed().map(json ? jsonLine : describe)
    }

    /// `2026-11-01T00:00:00Z`, Unix seconds, or a time ago: a whole number and one of `s`, `m`, `h`, `d` (`10m`
    /// is `now` less 600 seconds).
    static func parseSince(_ text: String, now: Int64) throws -> Int64 {
        if let seconds = Int64(text), seconds >= 0 { return seconds }
        if let seconds = RFC3339.parse(text) { return seconds }
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count >= 0,
            count <= 36_500 * 86_400 / unit
        {
            return now - count * unit
        }
        throw AuditQueryError(
            description: "--since must be a time like 2026-11-01T00:00:00Z, Unix seconds, or a time ago like 10m "
                + "(s, m, h or d)")
    }

    /// One text line of `event`, every recorded field escaped: whatever was typed, it stays on its line and drives
    /// no terminal.
    static func describe(_ event: AuditEvent) -> String {
        let e = AuditText.escaped
        var line = "\(RFC3339.format(event.time))  \(event.action.rawValue)"
        line += "  \(event.actorKind.rawValue) \(e(event.actorID))  \(e(event.target))"
        if let owner = event.ownerID { line += "  owner \(e(owner))" }
        if let client = event.clientAddress { line += "  from \(e(client))" }
        if let details = event.details { line += "  \(e(details))" }
        return line
    }

    /// One JSON object of `event` (`time` as RFC 3339, `unix_time`, `action`, `actor_kind`, `actor_id`, `owner_id`,
    /// `target`, `client_address`, `details`: the recorded object, or its text when it is not one; absent values
    /// `null`), on one line, with no control character but as an escape (``AuditText/terminalSafeJSON(_:)``).
    static func jsonLine(_ event: AuditEvent) -> String {
        let details = event.details.map { text in (try? JSONValue.parse(Array(text.utf8))) ?? .string(text) }
        let object = JSONValue.object([
            ("time", .string(RFC3339.format(event.time))), ("unix_time", .int(event.time)),
            ("action", .string(event.action.rawValue)), ("actor_kind", .string(event.actorKind.rawValue)),
            ("actor_id", .string(event.actorID)), ("owner_id", event.ownerID.map(JSONValue.string) ?? .null),
            ("target", .string(event.target)), ("client_address", event.clientAddress.map(JSONValue.string) ?? .null),
            ("details", details ?? .null),
        ])
        return String(decoding: AuditText.terminalSafeJSON(object.serialize()), as: UTF8.self)
    }

    /// Records an operator command that changed something, after it did; a failed write is logged, never thrown.
    /// `details` never holds a password or key.
    static func recordOperator(
        _ database: any SQLDatabase, _ action: AuditAction = .operatorCommand, target: String,
        details: KeyValuePairs<String, String> = [:], logger: Logger
    ) {
        let event = AuditEvent(
            time: unixNow(), actorKind: .operator, actorID: "operator", ownerID: nil, action: action, target: target,
            details: details.isEmpty ? nil : AuditDetails.json(details))
        do {
            try database.writeSync { try SQLAuditLog.insert(event, $0) }
        } catch {
            logger.error("audit event not recorded", metadata: ["action": "\(action.rawValue)", "error": "\(error)"])
        }
    }
}
