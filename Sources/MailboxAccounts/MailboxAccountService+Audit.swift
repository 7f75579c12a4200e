import Audit

extension MailboxAccountService {
    /// A Pro user's change on the operator's trail (no owner: Pro users have no `/owner` page). `target` is an id or a
    /// domain, never a token.
    package func recordPro(_ userID: String, _ action: AuditAction, target: String, clientAddress: String?) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: userID, ownerID: nil, action: action, target: target,
                clientAddress: clientAddress)
        }
    }
}
