import AgentAuth
import MailboxAccounts

/// The agents' accounts as the operator's `DELETE /api/operator/messages?reset=accounts` removes them: AgentAuth's
/// store behind MailboxAccounts' port, so each surface deletes its own accounts.
struct AgentAccountReset: OperatorAccountReset {
    let store: AgentAccountStore

    func deleteAccounts(createdSince since: Int64) async throws -> Int {
        try await store.deleteAccounts(createdSince: since)
    }
}
