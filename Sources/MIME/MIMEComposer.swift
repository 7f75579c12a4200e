import Foundation

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

    public init(messageID: String, date: Int64) {
        self.messageID = messageID
        self.date = date
    }
}

/// Writes an ``OutgoingMessage`` as MIME: 7bit text where it is plain ASCII with short lines, base64 otherwise;
/// `multipart/alternative` for a text and an HTML body, `multipart/mixed` around them when there are attachments;
/// RFC 2047 encoded words for non-ASCII header text and RFC 2231 for non-ASCII file names.
public enum MIMEComposer {
    public static func compose(_ message: OutgoingMessage) -> [UInt8] {
        var head: [String] = []
        func addresses(_ name: String, _ list: [MailAddress]) {
            if !list.isEmpty { head.append("\(name): " + list.map(address).joined(separator: ", ")) }
        }
        addresses("From", message.from)
        if let sender = message.sender { head.append("Sender: " + address(sender)) }
        addresses("To", message.to)
        addresses("Cc", message.cc)
        addresses("Reply-To", message.replyTo)
        if let subject = message.subject { head.append("Subject: " + headerText(subject)) }
        head.append("Date: " + date(message.date))
        head.append("Message-ID: <\(message.messageID)>")
        if !message.inReplyTo.isEmpty { head.append("In-Reply-To: " + message.inReplyTo.map { "<\($0)>" }.joined(separator: " ")) }
        if !message.references.isEmpty { head.append("References: " + message.references.map { "<\($0)>" }.joined(separator: " ")) }
        head.append("MIME-Version: 1.0")

        let boundary = "=_postern_" + message.messageID.filter { $0.isLetter || $0.isNumber }
        var body = bodyPart(message, boundary: boundary + "_alt")
        if !message.attachments.isEmpty {
            var parts = [body]
            for attachment in message.attachments { parts.append(attachmentPart(attachment)) }
            body = multipart("mixed", boundary: boundary + "_mix", parts)
        }
        return Array((head + body.headers).joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8) + body.content
    }

    /// One entity: its header lines and its content.
    private struct Part {
        var headers: [String]
        var content: [UInt8]
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
        let plain = bytes.allSatisfy { $0 < 0x80 } && !normalized.components(separatedBy: "\r\n").contains { $0.utf8.count > 998 }
        return Part(
            headers: [
                "Content-Type: text/\(subtype); charset=utf-8",
                "Content-Transfer-Encoding: " + (plain ? "7bit" : "base64"),
            ], content: plain ? bytes : base64(bytes))
    }

    private static func attachmentPart(_ attachment: MailAttachment) -> Part {
        var type = "Content-Type: " + attachment.contentType
        var disposition = "Content-Disposition: " + (attachment.disposition ?? "attachment")
        if let name = attachment.filename {
            if name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                type += "; name=\"\(name)\""
                disposition += "; filename=\"\(name)\""
            } else {
                let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                type += "; name=\"\(headerText(name))\""
                disposition += "; filename*=UTF-8''" + encoded
            }
        }
        var headers = [type, disposition, "Content-Transfer-Encoding: base64"]
        if let id = attachment.contentID { headers.append("Content-ID: <\(id)>") }
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

    private static func base64(_ bytes: [UInt8]) -> [UInt8] {
        Array(Data(bytes).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]).utf8)
    }

    /// `Name <local@domain>`, the name quoted or encoded as needed.
    static func address(_ address: MailAddress) -> String {
        guard let name = address.name, !name.isEmpty else { return "<\(address.email)>" }
        if name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f }) {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\" <\(address.email)>"
        }
        return headerText(name) + " <\(address.email)>"
    }

    /// `text` as is when it is printable ASCII, else as UTF-8 `B` encoded words of at most 45 bytes each.
    static func headerText(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f }) { return flat }
        var words: [[UInt8]] = []
        var chunk: [UInt8] = []
        for character in flat {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append(chunk)
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?" + Data($0).base64EncodedString() + "?=" }.joined(separator: "\r\n ")
    }

    private static func date(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
