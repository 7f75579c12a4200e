import MIME

/// A stored message with every parsed field (the raw bytes and attachment bytes are read separately).
public struct MailMessageRecord: Sendable, Equatable {
    public var summary: MailSummary
    public var to: [MailAddress]
    public var cc: [MailAddress]
    public var bcc: [MailAddress]
    public var replyTo: [MailAddress]
    public var messageID: String?
    public var inReplyTo: [String]
    public var references: [String]
    public var sentAt: Int64?
    public var textBody: String?
    public var htmlBody: String?
    public var attachments: [MailAttachmentInfo]
}
