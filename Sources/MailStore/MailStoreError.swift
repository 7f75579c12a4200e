/// Why a delivery stored nothing.
public enum MailStoreError: Error, Sendable, Equatable {
    /// The copy would take `address` past its quota (SMTP 552 5.2.2).
    case quotaExceeded(address: String)
}
