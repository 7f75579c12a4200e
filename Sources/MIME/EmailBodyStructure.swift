/// One part of a message as RFC 8621 §4.1.4 describes it (EmailBodyPart): a multipart with its sub-parts, or a leaf
/// with an id to fetch its bytes by. Read from a ``MIMEPartTree``; a `message/rfc822` part is a leaf here.
public struct EmailBodyPart: Sendable {
    /// The leaf's id within its message (`1`, `2`, … in the order the leaves are written); nil for a multipart.
    public var partID: String?
    /// The part's header fields, raw (``RawHeaderFields``).
    public var headers: [MailHeader]
    /// Content-Disposition's `filename`, else Content-Type's `name`, decoded (RFC 2231, RFC 2047).
    public var name: String?
    /// `type/subtype`, lower-cased: `text/plain` without a Content-Type.
    public var type: String
    /// Content-Type's `charset`; `us-ascii` for a text part without one or a part without a Content-Type; nil else.
    public var charset: String?
    /// Content-Disposition's value, lower-cased.
    public var disposition: String?
    /// Content-ID without its angle brackets.
    public var cid: String?
    /// Content-Language's tags.
    public var language: [String]?
    /// Content-Location.
    public var location: String?
    /// A multipart's parts; empty for a leaf.
    public var subParts: [EmailBodyPart]
    /// The leaf's body as written, and its transfer encoding.
    var body: ArraySlice<UInt8>
    var encoding: String?

    /// Whether this is a `multipart/*` part.
    public var isMultipart: Bool { type.hasPrefix("multipart/") }

    /// The bytes after transfer decoding (empty for a multipart).
    public var decoded: [UInt8] { isMultipart ? [] : TransferEncodings.decode(body, encoding: encoding) }

    /// The size of ``decoded`` in octets (0 for a multipart).
    public var size: Int { decoded.count }

    /// The text of a leaf (RFC 8621 §4.1.4's EmailBodyValue): decoded by its transfer encoding and charset, each CRLF
    /// a LF; `isEncodingProblem` when a byte did not decode. At most `maxBytes` UTF-8 bytes (0: no limit), cut at a
    /// character's start, with `isTruncated`.
    public func text(maxBytes: Int) -> (value: String, isEncodingProblem: Bool, isTruncated: Bool) {
        let bytes = decoded
        var value = Charsets.decode(bytes, charset: charset).replacingOccurrences(of: "\r\n", with: "\n")
        let problem = value.unicodeScalars.contains("\u{FFFD}")
            && !bytes.indices.dropLast(2).contains { bytes[$0] == 0xEF && bytes[$0 + 1] == 0xBF && bytes[$0 + 2] == 0xBD }
        guard maxBytes > 0, value.utf8.count > maxBytes else { return (value, problem, false) }
        let utf8 = Array(value.utf8)
        var end = maxBytes
        while end > 0, utf8[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a character
        value = String(decoding: utf8[..<end], as: UTF8.self)
        return (value, problem, true)
    }
}

/// A message's body structure and the parts RFC 8621 §4.1.4's algorithm picks from it for `textBody`, `htmlBody`
/// and `attachments` (``BodyPartLists``, which delivery's ``MIMEParser`` runs too). Pure: bytes in.
public struct EmailBodyStructure: Sendable {
    /// The message's top part (its header fields are the message's).
    public var root: EmailBodyPart
    /// The parts to show as text, as HTML, and as attachments, in order.
    public var textBody: [EmailBodyPart] = []
    public var htmlBody: [EmailBodyPart] = []
    public var attachments: [EmailBodyPart] = []

    /// The structure of message `raw`.
    public init(_ raw: ArraySlice<UInt8>, limits: MIMELimits = .default) {
        var next = 1
        root = Self.part(MIMEPartTree(raw, limits: limits), limits: limits, next: &next)
        let lists = BodyPartLists(root: root)
        textBody = lists.text
        htmlBody = lists.html
        attachments = lists.attachments
    }

    /// Every leaf, in order.
    public var leaves: [EmailBodyPart] {
        func walk(_ part: EmailBodyPart) -> [EmailBodyPart] { part.isMultipart ? part.subParts.flatMap(walk) : [part] }
        return walk(root)
    }

    /// The leaf `id` names, or nil.
    public func part(_ id: String) -> EmailBodyPart? { leaves.first { $0.partID == id } }

    private static func part(_ tree: MIMEPartTree, limits: MIMELimits, next: inout Int) -> EmailBodyPart {
        let headers = RawHeaderFields.read(tree.header, limits: limits)
        func field(_ name: String) -> String? {
            headers.last { $0.name.lowercased() == name }.map { HeaderForm.unfolded($0.value).trimmingSpaces() }
        }
        let type = tree.subtype.isEmpty ? "text/plain" : tree.type + "/" + tree.subtype
        let parameter = { (name: String) in tree.parameters.first { $0.0 == name }?.1 }
        var part = EmailBodyPart(
            partID: nil, headers: headers,
            name: (tree.disposition?.parameters.first { $0.0 == "filename" }?.1 ?? parameter("name"))
                .map(EncodedWords.decode),
            type: type,
            charset: parameter("charset") ?? (type.hasPrefix("text/") ? "us-ascii" : nil),
            disposition: tree.disposition?.value,
            cid: tree.contentID.map { id in
                var trimmed = Substring(id.trimmingSpaces())
                if trimmed.hasPrefix("<"), trimmed.hasSuffix(">"), trimmed.count >= 2 { trimmed = trimmed.dropFirst().dropLast() }
                return String(trimmed)
            },
            language: field("content-language").map {
                $0.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
            },
            location: field("content-location"), subParts: [], body: tree.body, encoding: tree.encoding)
        if tree.type == "multipart" {
            part.charset = parameter("charset")
            part.subParts = tree.children.map { Self.part($0, limits: limits, next: &next) }
            part.body = tree.body.prefix(0)
        } else {
            part.partID = String(next)
            next += 1
        }
        return part
    }
}

/// The header fields of a header block as written (RFC 8621 §4.1.2.1's Raw form): each value from after its colon to
/// before its last line break, folding line breaks kept (as CRLF), no byte decoded; UTF-8 where it is, else read as
/// ISO-8859-1.
public enum RawHeaderFields {
    /// The fields of `header` (a header block, its empty line included or not), in order.
    public static func read(_ header: ArraySlice<UInt8>, limits: MIMELimits = .default) -> [MailHeader] {
        var parser = MIMEHeaderParser(limits: limits, keepsLineBreaks: true)
        guard (try? parser.feed(header)) != nil else { return [] }
        if !parser.isComplete { guard (try? parser.finish()) != nil else { return [] } }
        return parser.fields.map { field in
            MailHeader(
                name: field.name,
                value: String(validating: field.value, as: UTF8.self)
                    ?? String(String.UnicodeScalarView(field.value.map { Unicode.Scalar($0) })))
        }
    }
}
