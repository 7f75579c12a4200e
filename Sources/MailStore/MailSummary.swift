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
    /// The envelope recipients that led to this copy, joined by `, ` (`envelope_to`); nil when no SMTP envelope
    /// brought it.
    public var envelopeTo: String? = nil

    /// Every keyword, `$seen` included when the message was read: what JMAP shows and patches.
    public var allKeywords: Set<String> { isRead ? Set(keywords + ["$seen"]) : Set(keywords) }
}
