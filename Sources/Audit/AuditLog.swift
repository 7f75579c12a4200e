/// Where audit events are kept: the SQL table (``SQLAuditLog``) in a server, anything in a test.
public protocol AuditLog: Sendable {
    /// Stores `event`.
    /// - Throws: the store's errors; callers go through ``AuditTrail``, which logs and swallows them.
    func record(_ event: AuditEvent) async throws
    /// Events at or after `since` (Unix seconds; nil for all), of `ownerID` only when given, newest first, at most
    /// `limit`.
    func events(since: Int64?, ownerID: String?, limit: Int) async throws -> [AuditEvent]
    /// Deletes events older than `cutoff` (Unix seconds); returns how many went.
    func purge(olderThan cutoff: Int64) async throws -> Int
}
