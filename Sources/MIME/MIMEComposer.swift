import Base64Coding
import Foundation
import Time

/// A message to write as RFC 5322 bytes: what JMAP's `Email/set` creates.
public struct OutgoingMessage: Sendable, Equatable {
    public var from: [MailAddress] = []
    public var sender: MailAddress?
    public var to: [MailAddress] = []
    public var cc: [MailAddress] = []
    /// Not written into the headers (a Bcc header would tell every recipient); the envelope carries them.
    public var bcc: [MailAddress] = []
    public var replyTo: [MailAddress] = []
    public var subject: String?
    /// Without angle brackets, as are `inReplyTo` and `references`.
    public var messageID: String
    public var inReplyTo: [String] = []
    public var references: [String] = []
    /// Unix seconds.
    public var date: Int64
    public var textBody: String?
    public var htmlBody: String?
    public var attachments: [MailAttachment] = []
    /// Header lines of the message's own (``HeaderForm/line(_:_:)``, RFC 8621's `header:` properties): a `Date`,
    /// `Message-ID` or `MIME-Version` among them or among `body`'s own replaces the one written otherwise; the caller keeps them from
    /// repeating a field the properties above write.
    public var headerLines: [String] = []
    /// The body with a structure of its own; when set, it is written instead of `textBody`, `htmlBody` and
    /// `attachments`, and its own header lines are the message's.
    public var body: OutgoingPart?

    public init(messageID: String, date: Int64) {
        self.messageID = messageID
        self.date = date
    }
}

/// Why ``MIMEComposer`` refused a message: a value that cannot be written into its header field without
/// changing the header's structure (an address, a message id, a content type with a line break, say).
public struct MIMEComposerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The header field the value was for, such as `To` or `Content-Type`.
    public let field: String
    /// What is wrong with it, without echoing the value.
    public let reason: String

    public var description: String { "\(field): \(reason)" }
}

/// Writes an ``OutgoingMessage`` as MIME: 7bit text where it is plain ASCII with short lines, base64 otherwise;
/// `multipart/alternative` for a text and an HTML body, `multipart/mixed` around them when there are attachments.
///
/// No value can add a header line or change a field's structure: display names are RFC 5322 quoted strings or
/// RFC 2047 encoded words, never bare; control characters (CR and LF among them) in free text become spaces;
/// subjects are folded or encoded, non-ASCII file names written with RFC 2231; addresses, message ids and content
/// types that would need quoting are refused. Every line stays under 998 octets.
public enum MIMEComposer {
    /// The message as RFC 5322 bytes with CRLF line ends.
    /// - Throws: ``MIMEComposerError`` for an address, message id, content id, content type or disposition that
    ///   holds a character its field cannot carry (a space, a control character, an angle bracket, ...).
    public static func compose(_ message: OutgoingMessage) throws(MIMEComposerError) -> [UInt8] {
        var head: [String] = []
        /// A field of `list`'s items, each written (and checked) by `write` for field `name`, folded with `separator`;
        /// none for an empty list.
        func field<Item>(
            _ name: String, _ list: [Item], separator: String,
            _ write: (Item, String) throws(MIMEComposerError) -> String
        ) throws(MIMEComposerError) {
            guard !list.isEmpty else { return }
            var written: [String] = []
            for item in list { written.append(try write(item, name)) }
            head.append(HeaderText.fold(name, written, separator: separator))
        }
        func addresses(_ name: String, _ list: [MailAddress]) throws(MIMEComposerError) {
            try field(name, list, separator: ",", address(_:field:))
        }
        try addresses("From", message.from)
        if let sender = message.sender { try addresses("Sender", [sender]) }
        try addresses("To", message.to)
        try addresses("Cc", message.cc)
        try addresses("Reply-To", message.replyTo)
        if let subject = message.subject { head.append(HeaderText.unstructured("Subject", subject)) }
        let given = Set((message.headerLines + (message.body?.headerLines ?? [])).map(OutgoingPart.fieldName))
        if !given.contains("date") { head.append("Date: " + RFC5322Date.format(message.date)) }
        if !given.contains("message-id") {
            head.append("Message-ID: " + (try messageID(message.messageID, field: "Message-ID")))
        }
        try field("In-Reply-To", message.inReplyTo, separator: "", messageID(_:field:))
        try field("References", message.references, separator: "", messageID(_:field:))
        head += message.headerLines
        if !given.contains("mime-version") { head.append("MIME-Version: 1.0") }

        let boundary = Self.boundary(message)
        if let structure = message.body {
            var counter = 0
            let written = try write(structure, boundary: boundary, counter: &counter)
            return Array((head + written.headers).joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8)
                + written.content
        }
        var body = bodyPart(message, boundary: boundary + "_alt")
        if !message.attachments.isEmpty {
            var parts = [body]
            for attachment in message.attachments { parts.append(try attachmentPart(attachment)) }
            body = multipart("mixed", boundary: boundary + "_mix", parts)
        }
        return Array((head + body.headers).joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8) + body.content
    }

    /// One entity: its header lines and its content.
    private struct Part {
        var headers: [String]
        var content: [UInt8]
    }

    /// `=_postern_` and ASCII letters and digits of the message id (at most 40, so a boundary stays under RFC
    /// 2046's 70 characters), lengthened until no 7bit body holds it. Base64 content never holds `_`.
    private static func boundary(_ message: OutgoingMessage) -> String {
        let letters = message.messageID.unicodeScalars.filter {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        }
        let base = "=_postern_" + String(String.UnicodeScalarView(letters.prefix(40)))
        let bodies = [message.textBody, message.htmlBody].compactMap { $0 } + (message.body?.texts ?? [])
        var candidate = base
        var counter = 0
        while bodies.contains(where: { $0.contains(candidate) }) {
            counter += 1
            candidate = base + "_\(counter)"
        }
        return candidate
    }

    private static func bodyPart(_ message: OutgoingMessage, boundary: String) -> Part {
        switch (message.textBody, message.htmlBody) {
        case (let text?, let html?):
            return multipart("alternative", boundary: boundary, [textPart(text, "plain"), textPart(html, "html")])
        case (nil, let html?): return textPart(html, "html")
        case (let text?, nil): return textPart(text, "plain")
        case (nil, nil): return textPart("", "plain")
        }
    }

    private static func textPart(_ text: String, _ subtype: String) -> Part {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        let bytes = Array(normalized.utf8)
        // RFC 2045 2.7: 7bit is ASCII without NUL, CR and LF only as CRLF, lines of at most 998 octets.
        let lines = normalized.components(separatedBy: "\r\n")
        let eightBit = bytes.contains { $0 >= 0x80 || $0 == 0 }
        let badLine = lines.contains { line in line.utf8.count > 998 || line.utf8.contains { $0 == 0x0d || $0 == 0x0a }
        }
        let plain = !eightBit && !badLine
        return Part(
            headers: [
                "Content-Type: text/\(subtype); charset=utf-8",
                "Content-Transfer-Encoding: " + (plain ? "7bit" : "base64"),
            ], content: plain ? bytes : base64(bytes))
    }

    private static func attachmentPart(_ attachment: MailAttachment) throws(MIMEComposerError) -> Part {
        guard HeaderText.isMediaType(attachment.contentType) else {
            throw MIMEComposerError(field: "Content-Type", reason: "not type/subtype of RFC 2045 tokens")
        }
        let kind = attachment.disposition ?? "attachment"
        guard HeaderText.isToken(kind) else {
            throw MIMEComposerError(field: "Content-Disposition", reason: "not an RFC 2045 token")
        }
        var type = ["Content-Type: " + attachment.contentType]
        var disposition = ["Content-Disposition: " + kind]
        if let name = attachment.filename {
            type.append(contentsOf: HeaderText.parameter("name", name, extended: false))
            disposition.append(contentsOf: HeaderText.parameter("filename", name, extended: true))
        }
        var headers = [type.joined(separator: ";\r\n "), disposition.joined(separator: ";\r\n ")]
        headers.append("Content-Transfer-Encoding: base64")
        if let id = attachment.contentID { headers.append("Content-ID: " + (try messageID(id, field: "Content-ID"))) }
        return Part(headers: headers, content: base64(attachment.data))
    }

    private static func multipart(_ subtype: String, boundary: String, _ parts: [Part]) -> Part {
        var content: [UInt8] = []
        for part in parts {
            content += Array("--\(boundary)\r\n".utf8) + Array(part.headers.joined(separator: "\r\n").utf8)
            content += Array("\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        content += Array("--\(boundary)--\r\n".utf8)
        return Part(headers: ["Content-Type: multipart/\(subtype); boundary=\"\(boundary)\""], content: content)
    }

    static func base64(_ bytes: [UInt8]) -> [UInt8] {
        Array(Base64.encode(bytes, lineLength: 76, lineEnding: "\r\n").utf8)
    }

    /// `"Name" <local@domain>`, or encoded words for a name that is not short printable ASCII; `<local@domain>`
    /// without a name.
    /// - Throws: when the address itself holds a character an addr-spec cannot carry bare.
    static func address(_ address: MailAddress, field: String) throws(MIMEComposerError) -> String {
        guard AddressListParser.isPlainAddress(address.email) else {
            throw MIMEComposerError(
                field: field, reason: "an address is local@domain without spaces, controls or specials")
        }
        guard let name = address.name, !name.isEmpty else { return "<\(address.email)>" }
        return HeaderText.phrase(name) + " <\(address.email)>"
    }

    /// `<id>`.
    /// - Throws: for an id that is empty, longer than 900 bytes, or holds a space, a control character or an
    ///   angle bracket.
    static func messageID(_ id: String, field: String) throws(MIMEComposerError) -> String {
        guard !id.isEmpty, id.utf8.count <= 900,
            !id.unicodeScalars.contains(where: { HeaderText.isUnsafe($0) || $0 == "<" || $0 == ">" })
        else {
            throw MIMEComposerError(
                field: field, reason: "a message id is at most 900 bytes without spaces, controls or angle brackets")
        }
        return "<\(id)>"
    }
}
