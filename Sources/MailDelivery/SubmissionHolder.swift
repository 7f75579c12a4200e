/// Who answers for a sender's outside mail, as the sender rule names them (``OutsideSender/allowed(holder:)``) and the
/// ledger records them with each submission: the limits of scope ``SendLimit/Scope/holder`` count every submission of
/// one holder together, whichever of their senders made it. Stored by its one encoding, ``key``.
public enum SubmissionHolder: Sendable, Hashable {
    /// An owner, by `owners.id`: every inbox they hold, on the agent domain or their own verified domains.
    case owner(String)

    /// The holder as the ledger stores it (`outbound_submissions.holder`): `owner:` and the owner's id.
    public var key: String {
        switch self {
        case .owner(let id): "owner:\(id)"
        }
    }
}
