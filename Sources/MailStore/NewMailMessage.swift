import MIME
import MailExtraction

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
    /// Keywords the message brings with it: the tags of its `X-Tags` header (``MailTag``), which Mailpit adds on
    /// arrival; every copy stored is given them besides the keywords its writer sets.
    public var headerKeywords: Set<String> = []
    /// Its one-time codes and links with their kinds (issue 85), found once when the record is made, before the
    /// delivery's transaction opens, and stored in that transaction with every copy (`mail_extractions`); nil when
    /// the operator turned looking at delivery off (`POSTERN_MAIL_EXTRACT=off`): the message is then stored as one
    /// from before migration 0068, whose codes `postern mail extract --backfill` finds.
    public var extraction: MessageExtraction?

    /// A record of these fields; `extraction` nil finds the codes and links in the subject and the two bodies.
    public init(
        envelopeFrom: String, from: [MailAddress] = [], to: [MailAddress] = [],
        cc: [MailAddress] = [], bcc: [MailAddress] = [], replyTo: [MailAddress] = [],
        subject: String? = nil,
        messageID: String? = nil, inReplyTo: [String] = [], references: [String] = [], sentAt: Int64? = nil,
        textBody: String? = nil, htmlBody: String? = nil, preview: String = "", attachments: [MailAttachment] = [],
        raw: [UInt8], extraction: MessageExtraction? = nil
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
        self.extraction = extraction ?? {
            var fields = ParsedMessage()
            (fields.subject, fields.textBody, fields.htmlBody) = (subject, textBody, htmlBody)
            return MessageExtraction.extract(from: fields)
        }()
    }

    /// The record of a parsed message: its fields as the parser read them (a Bcc field too, which a message rarely
    /// carries: a sender's own copy, an import; JMAP's `bcc` and its `bcc` filter read it), and, when `extracting`, what ``MessageExtraction`` finds in it (the `List-Unsubscribe` header's
    /// links too).
    public init(_ parsed: ParsedMessage, envelopeFrom: String, raw: [UInt8], extracting: Bool = true) {
        self.init(
            envelopeFrom: envelopeFrom, from: parsed.from, to: parsed.to, cc: parsed.cc, bcc: parsed.bcc,
            replyTo: parsed.replyTo,
            subject: parsed.subject, messageID: parsed.messageID, inReplyTo: parsed.inReplyTo,
            references: parsed.references, sentAt: parsed.date, textBody: parsed.textBody, htmlBody: parsed.htmlBody,
            preview: parsed.preview, attachments: parsed.attachments, raw: raw,
            extraction: extracting ? MessageExtraction.extract(from: parsed) : MessageExtraction(codes: [], links: []))
        if !extracting { extraction = nil }
        headerKeywords = parsed.headers.filter { $0.name.lowercased() == "x-tags" }
            .reduce(into: Set<String>()) { $0.formUnion(MailTag.keywords(fromHeader: $1.value)) }
    }
}
