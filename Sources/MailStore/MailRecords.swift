/// A name and address as a header gives them.
public struct MailAddressRecord: Sendable, Equatable, Codable {
    public var name: String?
    public var email: String

    public init(name: String? = nil, email: String) {
        self.name = name
        self.email = email
    }
}

/// Where a copy of a message sits in its address's mailbox.
public enum MailFolder: String, Sendable, CaseIterable {
    case inbox
    case drafts
    case sent
}

/// An attachment as delivery decoded it.
public struct NewMailAttachment: Sendable, Equatable {
    public var filename: String?
    /// Lower-cased `type/subtype`.
    public var contentType: String
    public var contentID: String?
    /// `attachment`, `inline`, or nil when the part had no disposition.
    public var disposition: String?
    public var data: [UInt8]

    public init(filename: String?, contentType: String, contentID: String?, disposition: String?, data: [UInt8]) {
        self.filename = filename
        self.contentType = contentType
        self.contentID = contentID
        self.disposition = disposition
        self.data = data
    }
}

/// A message to store: its raw bytes and the fields its parser read from them.
public struct NewMailMessage: Sendable, Equatable {
    /// SMTP `MAIL FROM` (empty for the null sender), or the sender's address for local submission.
    public var envelopeFrom: String
    public var from: [MailAddressRecord]
    public var to: [MailAddressRecord]
    public var cc: [MailAddressRecord]
    /// Kept for the sender's own copy only: a Bcc is never written into the raw message.
    public var bcc: [MailAddressRecord]
    public var replyTo: [MailAddressRecord]
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
    public var attachments: [NewMailAttachment]
    public var raw: [UInt8]

    public init(
        envelopeFrom: String, from: [MailAddressRecord] = [], to: [MailAddressRecord] = [],
        cc: [MailAddressRecord] = [], bcc: [MailAddressRecord] = [], replyTo: [MailAddressRecord] = [],
        subject: String? = nil,
        messageID: String? = nil, inReplyTo: [String] = [], references: [String] = [], sentAt: Int64? = nil,
        textBody: String? = nil, htmlBody: String? = nil, preview: String = "", attachments: [NewMailAttachment] = [],
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
}

/// What a listing shows of a stored message.
public struct MailSummary: Sendable, Equatable {
    public var id: String
    public var address: String
    public var folder: MailFolder
    public var envelopeFrom: String
    public var from: [MailAddressRecord]
    public var subject: String?
    public var preview: String
    public var size: Int64
    public var isRead: Bool
    public var receivedAt: Int64
    /// The first message of its conversation at this address (its own id when it starts one).
    public var threadID: String
    /// Keywords other than `$seen` (which `isRead` is), sorted.
    public var keywords: [String]
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
    public var to: [MailAddressRecord]
    public var cc: [MailAddressRecord]
    public var bcc: [MailAddressRecord]
    public var replyTo: [MailAddressRecord]
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
