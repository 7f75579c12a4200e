import Audit

extension MailboxService {
    /// A Pro user's change on the operator's trail (no owner: Pro users have no `/owner` page). `target` is an id or a
    /// domain, never a token.
    func recordPro(_ userID: String, _ action: AuditAction, target: String, _ call: MailboxCall) async {
        await recordPro(userID, action, target: target, clientAddress: call.context.clientAddress?.description)
    }

    /// The same, from a client address already read (the web inbox's dashboard passes its request's).
    func recordPro(_ userID: String, _ action: AuditAction, target: String, clientAddress: String?) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: userID, ownerID: nil, action: action, target: target,
                clientAddress: clientAddress)
        }
    }
}
