import EmailAddresses
import Storage

/// Which addresses a scoped read or write of the store covers (``MailStore`` `+Scoped`): every address, the
/// operator's view, or one address, such as a Pro user's SMTP sandbox.
public enum MailScope: Sendable, Equatable {
    /// Every address the store holds mail for.
    case everyAddress
    /// One address, normalised as addresses are stored (``EmailAddress/key(_:)``).
    case address(String)

    /// The SQL condition on `mail_messages` and its bound values.
    var condition: (String, [SQLValue]) {
        switch self {
        case .everyAddress: return ("1 = 1", [])
        case .address(let address): return ("address = ?", [.text(EmailAddress.key(address))])
        }
    }
}
