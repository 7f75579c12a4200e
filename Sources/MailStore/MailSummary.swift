import MIME

/// What a listing shows of a stored message.
public struct MailSummary: Sendable, Equatable {
    public var id: String
    public var address: String
    public var folder: MailFolder
    public var envelopeFrom: String
    public var from: [MailAddress]
    public var subject: String?
    public var preview: String
    public var size: Int64
    public var isRead: Bool
    public var receivedAt: Int64
    /// The first message of its conversation at this address (its own id when it starts one).
    public var threadID: String
    /// Keywords other than `$seen` (which `isRead` is), sorted.
    public var keywords: [String]
    /// The envelope recipients (`RCPT TO`) that led to this copy, each one whole, in the order they were given;
    /// empty when no SMTP envelope brought it (a message a mailbox wrote or sent).
    public var envelopeTo: [String] = []

    /// Every keyword, `$seen` included when the message was read: what JMAP shows and patches.
    public var allKeywords: Set<String> { isRead ? Set(keywords + ["$seen"]) : Set(keywords) }
}

extension MailSummary {
    /// The `envelope_to` column's text for `recipients`: joined by `, ` (the form its search reads, see
    /// ``MailSearch/to``); nil for none.
    static func envelopeColumn(_ recipients: [String]) -> String? {
        recipients.isEmpty ? nil : recipients.joined(separator: ", ")
    }

    /// The recipients the `envelope_to` column holds; empty for NULL.
    static func envelopeRecipients(_ column: String?) -> [String] {
        guard let column, !column.isEmpty else { return [] }
        return column.split(separator: ", ").map(String.init)
    }
}
