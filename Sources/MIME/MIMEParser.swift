import Foundation
import Time

/// Parses a raw RFC 5322 message into what the mail APIs read: addresses, subject, ids, date, the text and HTML
/// bodies, attachments and a preview. Pure: bytes in, a value out; malformed input degrades, only limits throw.
public enum MIMEParser {
    /// - Throws: ``MIMEError`` when `raw` passes one of `limits`.
    public static func parse(_ raw: [UInt8], limits: MIMELimits = .default) throws(MIMEError) -> ParsedMessage {
        guard raw.count <= limits.maximumMessageBytes else { throw .messageTooLarge }
        let root = try MIMEEntity(raw[...], limits: limits)
        var message = ParsedMessage()
        message.size = raw.count
        message.headers = root.headers.map { header in
            MailHeader(name: header.name, value: EncodedWords.decode(header.value))
        }
        let addresses = { (name: String) in root.field(name).map(AddressList.parse) ?? [] }
        message.from = addresses("From")
        message.sender = addresses("Sender").first
        message.to = addresses("To")
        message.cc = addresses("Cc")
        message.bcc = addresses("Bcc")
        message.replyTo = addresses("Reply-To")
        message.subject = root.field("Subject").map(EncodedWords.decode)
        message.messageID = root.field("Message-ID").flatMap { AddressList.messageIDs($0).first }
        message.inReplyTo = root.field("In-Reply-To").map(AddressList.messageIDs) ?? []
        message.references = root.field("References").map(AddressList.messageIDs) ?? []
        message.date = root.field("Date").flatMap { RFC5322Date.parse(AddressList.withoutComments($0)) }
        var walk = Walk(limits: limits)
        let top = try walk.visit(root, depth: 0, inDigest: false)
        let filed = walk.file(BodyPartLists(root: top))
        message.textBody = filed.text
        message.htmlBody = filed.html
        message.attachments = filed.attachments
        message.preview = Preview.make(text: filed.text, html: filed.html)
        return message
    }

    /// The text of a body made of several parts (RFC 8621 §4.1.4 lets a `multipart/mixed` hold more than one): the
    /// parts in order, each after the first on a line of its own (a line break is put between two only when the first
    /// does not end with one), as a mail client shows them one under the other; nil when there is none.
    static func joinedText(_ parts: [String]) -> String? {
        guard var joined = parts.first else { return nil }
        for part in parts.dropFirst() {
            if let last = joined.last, !last.isNewline { joined += "\n" }
            joined += part
        }
        return joined
    }

    /// A part as the delivery walk hands it to ``BodyPartLists``: `leaf` is its position in ``Walk/leaves``; nil for a
    /// multipart, and for an empty part (two boundaries in a row), which is counted where it stands but holds nothing.
    private struct WalkedPart: StructuredPart {
        var type: String
        var disposition: String?
        var name: String?
        var isMultipart: Bool
        var subParts: [WalkedPart]
        var leaf: Int?
    }

    /// The walk over the entity tree: each part read within `limits`, its leaves kept in order for ``file(_:)``.
    private struct Walk {
        /// A leaf: its entity, `Content-Type` (`message/rfc822` for a part of a `multipart/digest` without one, RFC
        /// 2046 §5.1.5), `Content-Disposition` and file name (the disposition's `filename`, else the type's `name`).
        struct Leaf {
            var entity: MIMEEntity
            var type: HeaderParameters
            var disposition: HeaderParameters?
            var filename: String?
        }

        let limits: MIMELimits
        var parts = 0
        var leaves: [Leaf] = []

        init(limits: MIMELimits) {
            self.limits = limits
        }

        mutating func visit(_ entity: MIMEEntity, depth: Int, inDigest: Bool) throws(MIMEError) -> WalkedPart {
            parts += 1
            guard parts <= limits.maximumParts else { throw .tooManyParts }
            let untyped = inDigest && entity.field("Content-Type") == nil
            let type = untyped ? HeaderParameters("message/rfc822") : entity.contentType
            let disposition = entity.disposition
            if type.value.hasPrefix("multipart/"), let boundary = type["boundary"], !boundary.isEmpty {
                guard depth < limits.maximumDepth else { throw .tooDeep }
                var subParts: [WalkedPart] = []
                for part in Multipart.split(entity.body, boundary: boundary) {
                    guard !part.isEmpty else {
                        subParts.append(
                            WalkedPart(
                                type: "text/plain", disposition: nil, name: nil, isMultipart: false, subParts: [],
                                leaf: nil))
                        continue
                    }
                    let inner = try MIMEEntity(part, limits: limits)
                    subParts.append(try visit(inner, depth: depth + 1, inDigest: type.value == "multipart/digest"))
                }
                return WalkedPart(
                    type: type.value, disposition: disposition?.value, name: nil, isMultipart: true, subParts: subParts,
                    leaf: nil)
            }
            let filename = (disposition?["filename"] ?? type["name"]).map(EncodedWords.decode)
            leaves.append(Leaf(entity: entity, type: type, disposition: disposition, filename: filename))
            return WalkedPart(
                type: type.value, disposition: disposition?.value, name: filename, isMultipart: false, subParts: [],
                leaf: leaves.count - 1)
        }

        /// What the message is stored with, as `lists` picked it: the text body is the `text/plain` leaves of the text
        /// list (``joinedText(_:)``), the HTML body the `text/html` leaves of the HTML list, one after the other, and
        /// every other leaf, in the message's order, an attachment. An attachment keeps its own disposition when the
        /// attachments list holds it, and is `inline` when the RFC shows it in the body only (an image beside the text
        /// of a `multipart/mixed`), so that every door's has-attachment (``MailAttachment/disposition``) reads the
        /// RFC's answer.
        func file(_ lists: BodyPartLists<WalkedPart>) -> (text: String?, html: String?, attachments: [MailAttachment]) {
            let textLeaves = Set(lists.text.filter { $0.type == "text/plain" }.compactMap(\.leaf))
            let htmlLeaves = Set(lists.html.filter { $0.type == "text/html" }.compactMap(\.leaf))
            let listed = Set(lists.attachments.compactMap(\.leaf))
            var texts: [String] = []
            var htmls: [String] = []
            var attachments: [MailAttachment] = []
            for (index, leaf) in leaves.enumerated() {
                if textLeaves.contains(index) || htmlLeaves.contains(index) {
                    let body = Charsets.decode(leaf.entity.decodedBody, charset: leaf.type["charset"])
                    if textLeaves.contains(index) { texts.append(body) } else { htmls.append(body) }
                    continue
                }
                let data = leaf.type.value == "message/rfc822" ? Array(leaf.entity.body) : leaf.entity.decodedBody
                attachments.append(
                    MailAttachment(
                        filename: leaf.filename, contentType: leaf.type.value,
                        contentID: leaf.entity.field("Content-ID").flatMap { AddressList.messageIDs($0).first },
                        disposition: listed.contains(index) ? leaf.disposition?.value : "inline", data: data))
            }
            return (joinedText(texts), htmls.isEmpty ? nil : htmls.joined(), attachments)
        }
    }
}

/// Splits a multipart body at its boundary lines (RFC 2046 5.1.1): the preamble and epilogue are dropped; a
/// missing closing boundary ends the last part at the end of the body.
enum Multipart {
    static func split(_ body: ArraySlice<UInt8>, boundary: String) -> [ArraySlice<UInt8>] {
        let delimiter = Array(("--" + boundary).utf8)
        var parts: [ArraySlice<UInt8>] = []
        var partStart: Int?
        var lineStart = body.startIndex
        while lineStart < body.endIndex {
            let lineEnd = body[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? body.endIndex
            let next = lineEnd < body.endIndex ? lineEnd + 1 : body.endIndex
            let line = body[lineStart..<lineEnd]
            if line.starts(with: delimiter) {
                let rest = line.dropFirst(delimiter.count)
                let closing = rest.starts(with: Array("--".utf8))
                let tail = closing ? rest.dropFirst(2) : rest
                if tail.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
                    // An empty part: the next boundary starts where the part would (its line break is the one
                    // that ended the previous boundary line).
                    if let start = partStart { parts.append(body[start..<max(start, lineBreakStart(body, before: lineStart))]) }
                    if closing { return parts }
                    partStart = next
                }
            }
            lineStart = next
        }
        if let start = partStart, start < body.endIndex { parts.append(body[start...]) }
        return parts
    }

    /// Where the line break before `index` starts (it belongs to the boundary, RFC 2046).
    private static func lineBreakStart(_ body: ArraySlice<UInt8>, before index: Int) -> Int {
        var end = index
        if end > body.startIndex, body[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > body.startIndex, body[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return max(end, body.startIndex)
    }
}

/// The preview of a message: its text, or its HTML without tags, whitespace collapsed, at most 256 characters.
enum Preview {
    static func make(text: String?, html: String?) -> String {
        let source = text ?? html.map(stripTags) ?? ""
        var output = ""
        var count = 0  // output.count, kept: counting a String walks it, at each of up to 256 characters
        var space = false
        for character in source {
            if character.isWhitespace {
                space = count > 0
                continue
            }
            if space {
                output.append(" ")
                count += 1
            }
            space = false
            output.append(character)
            count += 1
            if count >= 256 { break }
        }
        return String(output.prefix(256))
    }

    /// HTML without its tags and the contents of `style` and `script`, with the common entities decoded.
    /// Read by its bytes: `<` and `>` are ASCII, so their positions are the string's own.
    static func stripTags(_ html: String) -> String {
        var output = ""
        var rest = Substring(html)
        while let open = rest.utf8.firstIndex(of: UInt8(ascii: "<")) {
            output += rest[..<open]
            let afterOpen = rest[open...]
            let lower = afterOpen.prefix(8).lowercased()
            let skipTo = lower.hasPrefix("<style") ? "</style>" : lower.hasPrefix("<script") ? "</script>" : nil
            if let skipTo, let end = afterOpen.byteRange(of: skipTo, ignoringASCIICase: true) {
                rest = afterOpen[end.upperBound...]
                continue
            }
            guard let close = afterOpen.utf8.firstIndex(of: UInt8(ascii: ">")) else { rest = ""; break }
            output += " "
            rest = afterOpen[afterOpen.utf8.index(after: close)...]
        }
        output += rest
        return decodingBasicEntities(output)
    }

    /// The entities a preview decodes (`&nbsp;` as a space, `&lt;`, `&gt;`, `&quot;`, `&#39;`, `&amp;`), in one pass;
    /// `&amp;lt;` gives `&lt;`, as replacing `&amp;` last did.
    static func decodingBasicEntities(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let entities: [(entity: [UInt8], character: UInt8)] = [
            (Array("&nbsp;".utf8), 0x20), (Array("&lt;".utf8), 0x3C), (Array("&gt;".utf8), 0x3E),
            (Array("&quot;".utf8), 0x22), (Array("&#39;".utf8), 0x27), (Array("&amp;".utf8), 0x26),
        ]
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        next: while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&") {
                for (entity, character) in entities where bytes[index...].starts(with: entity) {
                    output.append(character)
                    index += entity.count
                    continue next
                }
            }
            output.append(bytes[index])
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}
