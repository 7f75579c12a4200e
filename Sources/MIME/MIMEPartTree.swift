/// A message's MIME structure with every part's raw bytes (RFC 2045, RFC 2046), for a reader that serves parts as
/// they are stored: IMAP's `BODYSTRUCTURE` and `BODY[1.2.MIME]`. The bytes are slices of the message, nothing decoded;
/// a part whose header cannot be read is taken as `text/plain` with the whole part as its body, and a part of a
/// `multipart/digest` without a `Content-Type` as `message/rfc822` (RFC 2046 §5.1.5).
public struct MIMEPartTree: Sendable {
    /// The part's header block, the blank line that ends it included (empty when it has none).
    public var header: ArraySlice<UInt8>
    /// The part's body, as encoded.
    public var body: ArraySlice<UInt8>
    /// `Content-Type`'s type and subtype, lower-cased (`text`, `plain` when absent).
    public var type: String
    public var subtype: String
    /// `Content-Type`'s parameters, by lower-cased name, in name order.
    public var parameters: [(String, String)]
    public var contentID: String?
    public var contentDescription: String?
    /// `Content-Transfer-Encoding` as written; nil when absent (7bit).
    public var encoding: String?
    /// `Content-Disposition`'s value (lower-cased) and parameters, when present.
    public var disposition: (value: String, parameters: [(String, String)])?
    /// A multipart's parts in order, or a `message/rfc822`'s inner message (one tree); empty for a leaf.
    public var children: [MIMEPartTree]

    /// The tree of `raw`, at most `limits.maximumDepth` levels deep (deeper parts are leaves).
    public init(_ raw: ArraySlice<UInt8>, limits: MIMELimits = .default) {
        self.init(raw, limits: limits, depth: 0)
    }

    private init(_ raw: ArraySlice<UInt8>, limits: MIMELimits, depth: Int, inDigest: Bool = false) {
        guard let entity = try? MIMEEntity(raw, limits: limits) else {
            header = raw.prefix(0)
            body = raw
            type = "text"
            subtype = "plain"
            parameters = []
            children = []
            return
        }
        header = raw[raw.startIndex..<entity.body.startIndex]
        body = entity.body
        let contentType = entity.contentType
        let slash = contentType.value.firstIndex(of: "/") ?? contentType.value.endIndex
        if inDigest && entity.field("Content-Type") == nil {
            (type, subtype, parameters) = ("message", "rfc822", [])
        } else {
            type = String(contentType.value[..<slash])
            subtype =
                slash < contentType.value.endIndex ? String(contentType.value[contentType.value.index(after: slash)...]) : ""
            parameters = contentType.parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        contentID = entity.field("Content-ID")
        contentDescription = entity.field("Content-Description")
        encoding = entity.field("Content-Transfer-Encoding")
        disposition = entity.disposition.map {
            ($0.value, $0.parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
        children = []
        guard depth < limits.maximumDepth else { return }
        if type == "multipart", let boundary = contentType["boundary"], !boundary.isEmpty {
            let digest = subtype == "digest"
            children = Multipart.split(entity.body, boundary: boundary).prefix(limits.maximumParts).map {
                MIMEPartTree($0, limits: limits, depth: depth + 1, inDigest: digest)
            }
        } else if type == "message" && (subtype == "rfc822" || subtype == "global") {
            children = [MIMEPartTree(entity.body, limits: limits, depth: depth + 1)]
        }
    }

    /// The header block of `raw` as ``init(_:limits:)`` reads it (its ``header``: empty when a limit was passed),
    /// without reading its fields' values, its parameters or its parts: for a reader that needs the top header alone
    /// (IMAP's `ENVELOPE` of every message).
    public static func header(of raw: ArraySlice<UInt8>, limits: MIMELimits = .default) -> ArraySlice<UInt8> {
        if let end = blankLineEnd(raw, limits: limits) { return raw[..<end] }
        var parser = MIMEHeaderParser(limits: limits)
        guard let used = try? parser.feed(raw) else { return raw.prefix(0) }
        if !parser.isComplete { guard (try? parser.finish()) != nil else { return raw.prefix(0) } }
        return raw.prefix(used)
    }

    /// Where the header block of `raw` ends (after its empty line, CRLF or bare LF, as ``MIMEHeaderParser`` reads
    /// it), found line by line without reading the fields, when it is within `limits` by its bytes and by its lines
    /// (no more fields than lines): the parser would stop there too. Nil otherwise (no empty line, or too long a
    /// block to tell without counting its fields): the parser decides.
    private static func blankLineEnd(_ raw: ArraySlice<UInt8>, limits: MIMELimits) -> Int? {
        var lineStart = raw.startIndex
        var lines = 0
        while lines < limits.maximumHeaderCount, let newline = raw[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
            let end = newline + 1
            guard end - raw.startIndex <= limits.maximumHeaderBytes else { return nil }
            if newline == lineStart || (newline == lineStart + 1 && raw[lineStart] == UInt8(ascii: "\r")) { return end }
            lines += 1
            lineStart = end
        }
        return nil
    }

    /// The part at `path` (1-based numbers, RFC 9051 §6.4.5): `[]` is this one; a multipart's numbers are its parts,
    /// and an entity that is not multipart is its own part 1 (whose body, for a `message/rfc822`, is the message
    /// inside; the numbers after it are that message's). Nil when there is no such part.
    public func part(_ path: [Int]) -> MIMEPartTree? {
        guard let first = path.first else { return self }
        let chosen: MIMEPartTree
        if type == "multipart" && !children.isEmpty {
            guard first >= 1, first <= children.count else { return nil }
            chosen = children[first - 1]
        } else {
            guard first == 1 else { return nil }
            chosen = self
        }
        let rest = Array(path.dropFirst())
        if rest.isEmpty { return chosen }
        guard chosen.isMessage, let inner = chosen.children.first else { return nil }
        return inner.part(rest)
    }

    /// Whether this is a `message/rfc822` (or `message/global`) part with the message inside.
    public var isMessage: Bool { type == "message" && (subtype == "rfc822" || subtype == "global") && !children.isEmpty }
}
