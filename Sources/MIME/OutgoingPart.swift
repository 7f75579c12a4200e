/// One part of a message to write with a structure of its own (RFC 8621 §4.6's `bodyStructure` on create): a leaf
/// with its text or bytes, or a multipart of parts, with the Content-* fields its properties name and header lines
/// of its own. ``MIMEComposer`` writes it; the root part's header lines are the message's.
public struct OutgoingPart: Sendable, Equatable {
    /// What the part holds.
    public enum Content: Sendable, Equatable {
        /// Text, written as UTF-8 (its line ends as CRLF), 7bit when it can be, base64 else.
        case text(String)
        /// Bytes, written base64 (7bit when a text part's bytes can be).
        case bytes([UInt8])
        /// A multipart's parts.
        case parts([OutgoingPart])
    }

    /// `type/subtype`, lower-case.
    public var type: String
    /// The charset to name; for text content when nil, `us-ascii` for ASCII and `utf-8` otherwise.
    public var charset: String?
    /// Written as Content-Disposition's `filename` and Content-Type's `name`.
    public var name: String?
    public var disposition: String?
    /// Without angle brackets.
    public var cid: String?
    public var language: [String]?
    public var location: String?
    /// Header lines of its own (``HeaderForm/line(_:_:)``); a `Content-*` one among them replaces the one its
    /// properties would write.
    public var headerLines: [String]
    public var content: Content

    public init(
        type: String, charset: String? = nil, name: String? = nil, disposition: String? = nil, cid: String? = nil,
        language: [String]? = nil, location: String? = nil, headerLines: [String] = [], content: Content
    ) {
        self.type = type
        self.charset = charset
        self.name = name
        self.disposition = disposition
        self.cid = cid
        self.language = language
        self.location = location
        self.headerLines = headerLines
        self.content = content
    }

    /// The field name of a header line, lower-cased.
    static func fieldName(_ line: String) -> String {
        String(line.prefix { $0 != ":" }).lowercased()
    }

    /// Every text this part and its parts hold (a boundary must be in none).
    var texts: [String] {
        switch content {
        case .text(let text): [text]
        case .bytes(let bytes): [String(decoding: bytes, as: UTF8.self)]
        case .parts(let parts): parts.flatMap(\.texts)
        }
    }
}

extension MIMEComposer {
    /// `part` as header lines and content; `boundary` is the prefix of its multiparts' boundaries, each numbered.
    static func write(_ part: OutgoingPart, boundary: String, counter: inout Int) throws(MIMEComposerError)
        -> (headers: [String], content: [UInt8])
    {
        guard HeaderText.isMediaType(part.type) else {
            throw MIMEComposerError(field: "Content-Type", reason: "not type/subtype of RFC 2045 tokens")
        }
        let own = Set(part.headerLines.map(OutgoingPart.fieldName))
        var headers: [String] = []
        var content: [UInt8]
        var type = ["Content-Type: " + part.type]
        var encoding: String?
        switch part.content {
        case .parts(let parts):
            guard part.type.hasPrefix("multipart/") else {
                throw MIMEComposerError(field: "Content-Type", reason: "only a multipart has sub-parts")
            }
            counter += 1
            let mark = boundary + "_\(counter)"
            content = []
            for child in parts {
                let written = try write(child, boundary: boundary, counter: &counter)
                content += Array("--\(mark)\r\n".utf8) + Array(written.headers.joined(separator: "\r\n").utf8)
                content += Array("\r\n\r\n".utf8) + written.content + Array("\r\n".utf8)
            }
            content += Array("--\(mark)--\r\n".utf8)
            type.append("boundary=\"\(mark)\"")
        case .text(let text):
            let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
            let bytes = Array(normalized.utf8)
            let charset = part.charset ?? (bytes.allSatisfy { $0 < 0x80 } ? "us-ascii" : "utf-8")
            guard HeaderText.isToken(charset) else {
                throw MIMEComposerError(field: "Content-Type", reason: "a charset is an RFC 2045 token")
            }
            type.append("charset=" + charset)
            (content, encoding) = Self.isSevenBit(bytes) ? (bytes, "7bit") : (base64(bytes), "base64")
        case .bytes(let bytes):
            if let charset = part.charset {
                guard HeaderText.isToken(charset) else {
                    throw MIMEComposerError(field: "Content-Type", reason: "a charset is an RFC 2045 token")
                }
                type.append("charset=" + charset)
            }
            (content, encoding) =
                part.type.hasPrefix("text/") && Self.isSevenBit(bytes) ? (bytes, "7bit") : (base64(bytes), "base64")
        }
        guard !part.type.hasPrefix("multipart/") || encoding == nil else {
            throw MIMEComposerError(field: "Content-Type", reason: "a multipart holds parts")
        }
        guard !part.type.hasPrefix("multipart/") || !own.contains("content-type") else {
            // Its own field would stand for the one that declares the boundary its parts are written with.
            throw MIMEComposerError(field: "Content-Type", reason: "a multipart's is written with its boundary")
        }
        if let name = part.name { type.append(contentsOf: HeaderText.parameter("name", name, extended: false)) }
        if !own.contains("content-type") { headers.append(type.joined(separator: ";\r\n ")) }
        if part.disposition != nil || part.name != nil, !own.contains("content-disposition") {
            let kind = part.disposition ?? "attachment"
            guard HeaderText.isToken(kind) else {
                throw MIMEComposerError(field: "Content-Disposition", reason: "not an RFC 2045 token")
            }
            var disposition = ["Content-Disposition: " + kind]
            if let name = part.name {
                disposition.append(contentsOf: HeaderText.parameter("filename", name, extended: true))
            }
            headers.append(disposition.joined(separator: ";\r\n "))
        }
        if let cid = part.cid, !own.contains("content-id") {
            headers.append("Content-ID: " + (try messageID(cid, field: "Content-ID")))
        }
        if let language = part.language, !language.isEmpty, !own.contains("content-language") {
            guard language.allSatisfy(HeaderText.isToken) else {
                throw MIMEComposerError(field: "Content-Language", reason: "a language tag is an RFC 2045 token")
            }
            headers.append("Content-Language: " + language.joined(separator: ", "))
        }
        if let location = part.location, !own.contains("content-location") {
            guard HeaderForm.isWritableRaw(location), !location.contains("\r") else {
                throw MIMEComposerError(field: "Content-Location", reason: "a location is one line")
            }
            headers.append("Content-Location: " + location)
        }
        if let encoding { headers.append("Content-Transfer-Encoding: " + encoding) }
        return (part.headerLines + headers, content)
    }

    /// RFC 2045 2.7: ASCII without NUL, CR and LF only as CRLF, lines of at most 998 octets.
    static func isSevenBit(_ bytes: [UInt8]) -> Bool {
        var column = 0
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case 0, 0x80...0xFF: return false
            case 0x0D: guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else { return false }
            case 0x0A:
                guard index > 0, bytes[index - 1] == 0x0D else { return false }
                column = 0
                continue
            default: break
            }
            column += 1
            if column > 998 { return false }
        }
        return true
    }
}
