/// A name and address from an address header (`From`, `To`, ...); Codable as the mail store keeps address lists.
public struct MailAddress: Sendable, Equatable, Codable {
    public var name: String?
    public var email: String
    /// The obsolete source route written before the address (RFC 5322 §4.4 `obs-route`, `<@a,@b:user@host>`) as
    /// `@a,@b`; nil almost always. Kept only to be shown (IMAP's ENVELOPE `adl`), never to route mail.
    public var route: String?

    public init(name: String? = nil, email: String, route: String? = nil) {
        self.name = name
        self.email = email
        self.route = route
    }
}

/// One header field, unfolded, with encoded words decoded in its value.
public struct MailHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A part kept as an attachment: any leaf but those of the message's text and HTML bodies (``ParsedMessage``), an
/// image shown in the body included, so that every door can serve its bytes.
public struct MailAttachment: Sendable, Equatable {
    public var filename: String?
    /// Lower-cased `type/subtype`.
    public var contentType: String
    /// Without angle brackets.
    public var contentID: String?
    /// `inline` for a part RFC 8621 §4.1.4 shows in the body and does not list as an attachment (an image of a
    /// `multipart/mixed` without a disposition, say); else the part's own `Content-Disposition` (`attachment`,
    /// `inline`, nil without one). The stored part is shown in the body rather than offered to download when this is
    /// `inline`, or nil with a `Content-ID`: the rule of every door's has-attachment (MailStore's `isShownInline`).
    public var disposition: String?
    /// The decoded bytes.
    public var data: [UInt8]

    public init(filename: String?, contentType: String, contentID: String?, disposition: String?, data: [UInt8]) {
        self.filename = filename
        self.contentType = contentType
        self.contentID = contentID
        self.disposition = disposition
        self.data = data
    }
}

/// What the APIs read of a message.
public struct ParsedMessage: Sendable, Equatable {
    public var from: [MailAddress] = []
    public var sender: MailAddress?
    public var to: [MailAddress] = []
    public var cc: [MailAddress] = []
    public var bcc: [MailAddress] = []
    public var replyTo: [MailAddress] = []
    public var subject: String?
    /// Without angle brackets, as are `inReplyTo` and `references`.
    public var messageID: String?
    public var inReplyTo: [String] = []
    public var references: [String] = []
    /// The `Date` header, Unix seconds; nil when absent or unreadable.
    public var date: Int64?
    /// The `text/plain` parts of RFC 8621 §4.1.4's `textBody`, decoded and joined in order, each after the first on
    /// a line of its own (``MIMEParser/joinedText(_:)``): what a door with one text shows; nil without one.
    public var textBody: String?
    /// The `text/html` parts of RFC 8621 §4.1.4's `htmlBody`, decoded, one after the other; nil without one.
    public var htmlBody: String?
    public var attachments: [MailAttachment] = []
    /// Bytes of the raw message.
    public var size: Int = 0
    /// The top-level header fields, in order.
    public var headers: [MailHeader] = []
    /// At most 256 characters of the text body (or of the HTML without its tags), whitespace collapsed.
    public var preview: String = ""

    public init() {}
}
