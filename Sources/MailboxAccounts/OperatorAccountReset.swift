/// Accounts another surface keeps (the agents' inboxes), removed with the Mail.td accounts by the operator's
/// `DELETE /api/operator/messages?reset=accounts`: a port, so that the surface that owns them deletes them.
public protocol OperatorAccountReset: Sendable {
    /// Deletes every account created at or after `since` (Unix seconds); returns how many went.
    func deleteAccounts(createdSince since: Int64) async throws -> Int
}
