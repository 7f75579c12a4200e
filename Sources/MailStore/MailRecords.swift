import MIME

/// Where a copy of a message sits in its address's mailbox.
public enum MailFolder: String, Sendable, CaseIterable {
    case inbox
    case drafts
    case sent
}

/// A message to store: its raw bytes and the fields its parser read from them.
public struct NewMailMessage: Sendable, Equatable {
    /// SMTP `MAIL FROM` (empty for the null sender), or the sender's address for local submission.
    public var envelopeFrom: String
    public var from: [MailAddress]
    public var to: [MailAddress]
    public var cc: [MailAddress]
    /// Kept for the sender's own copy only: a Bcc is never written into the raw message.
    public var bcc: [MailAddress]
    public var replyTo: [MailAddress]
    public var subject: String?
    /// Without angle brackets, as are `inReplyTo` and `references`.
    public var messageID: String?
    public var inReplyTo: [String]
    public var references: [String]
    /// The `Date` header, Unix seconds.
    public var sentAt: Int64?
    public var textBody: String?
    public var htmlBody: String?
    /// At most 256 characters.
    public var preview: String
    public var attachments: [MailAttachment]
    public var raw: [UInt8]

    public init(
        envelopeFrom: String, from: [MailAddress] = [], to: [MailAddress] = [],
        cc: [MailAddress] = [], bcc: [MailAddress] = [], replyTo: [MailAddress] = [],
        subject: String? = nil,
        messageID: String? = nil, inReplyTo: [String] = [], references: [String] = [], sentAt: Int64? = nil,
        textBody: String? = nil, htmlBody: String? = nil, preview: String = "", attachments: [MailAttachment] = [],
        raw: [UInt8]
    ) {
        self.envelopeFrom = envelopeFrom
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.replyTo = replyTo
        self.subject = subject
        self.messageID = messageID
        self.inReplyTo = inReplyTo
        self.references = references
        self.sentAt = sentAt
        self.textBody = textBody
        self.htmlBody = htmlBody
        self.preview = String(preview.prefix(256))
        self.attachments = attachments
        self.raw = raw
    }

    /// The record of a parsed message: its fields as the parser read them (a Bcc stays empty: it is never in
    /// the bytes).
    public init(_ parsed: ParsedMessage, envelopeFrom: String, raw: [UInt8]) {
        self.init(
            envelopeFrom: envelopeFrom, from: parsed.from, to: parsed.to, cc: parsed.cc, replyTo: parsed.replyTo,
            subject: parsed.subject, messageID: parsed.messageID, inReplyTo: parsed.inReplyTo,
            references: parsed.references, sentAt: parsed.date, textBody: parsed.textBody, htmlBody: parsed.htmlBody,
            preview: parsed.preview, attachments: parsed.attachments, raw: raw)
    }
}

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

    /// Every keyword, `$seen` included when the message was read: what JMAP shows and patches.
    public var allKeywords: Set<String> { isRead ? Set(keywords + ["$seen"]) : Set(keywords) }
}

/// An attachment's description, without its bytes.
public struct MailAttachmentInfo: Sendable, Equatable {
    /// Zero-based, in the order of the message.
    public var position: Int
    public var filename: String?
    public var contentType: String
    public var contentID: String?
    public var disposition: String?
    public var size: Int64
}

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

/// Why a delivery stored nothing.
public enum MailStoreError: Error, Sendable, Equatable {
    /// The copy would take `address` past its quota (SMTP 552 5.2.2).
    case quotaExceeded(address: String)
}
