import MIME
import MailStore

/// Why a delivery stored nothing.
public enum LocalDeliveryError: Error, Sendable {
    /// Every recipient stopped being local between RCPT and the end of DATA (an account was deleted).
    case noLocalRecipient
    /// The message passed one of the MIME parser's limits.
    case unreadable(MIMEError)
    /// The store refused it (a full quota).
    case stored(MailStoreError)
}
