/// Why a write stored nothing.
public enum MailStoreError: Error, Sendable, Equatable {
    /// The copy would take `address` past its quota (SMTP 552 5.2.2).
    case quotaExceeded(address: String)
    /// The keywords written would pass this cap of ``MailStore/keywordLimits`` (IMAP's `NO [LIMIT]`, JMAP's
    /// `tooManyKeywords` or `invalidProperties`).
    case keywordLimit(MailKeywordLimits.Limit)
}
