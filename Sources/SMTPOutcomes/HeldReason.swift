/// Why a recipient on another domain was held in this server's outbox instead of being sent: what would have to change
/// for it to leave. Carried typed from the decision (JMAP's submission) through the ledger to every surface that shows
/// it; each surface words it only when it renders (``explanation``), and a release decides on the case alone.
public enum HeldReason: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Outbound delivery is off on this server (`POSTERN_OUTBOUND_MODE=off`): nothing leaves until the operator turns
    /// it on.
    case outboundOff = "outbound_off"
    /// The sender is no inbox an owner holds, and only those may write outside (`POSTERN_OUTBOUND_SENDERS=owned`).
    case needsOwner = "needs_owner"
    /// An owner holds the sender but signed up themselves and waits for the operator's approval.
    case awaitingApproval = "awaiting_approval"

    /// The stable code of the reason (`outbound_off`, `needs_owner`, `awaiting_approval`): what is stored, and what
    /// JMAP's `deliveryStatus` and MCP's results carry for a program to switch on.
    public var code: String { rawValue }

    /// The reason in words an agent can act on, for display only.
    public var explanation: String {
        switch self {
        case .outboundOff: "outbound delivery is off on this server"
        case .needsOwner: "this inbox needs an owner before it can write outside"
        case .awaitingApproval: "this inbox's owner waits for the operator's approval before it can write outside"
        }
    }
}
