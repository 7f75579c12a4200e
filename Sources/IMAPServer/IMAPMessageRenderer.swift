import IMAP
import MIME
import MailStore

/// One stored message as `FETCH` shows it (RFC 9051 §7.5.2): its sections and partials cut from the raw bytes as
/// stored, its `ENVELOPE` from the header, its `BODYSTRUCTURE` from MIME's part tree. Pure: bytes in, items out.
struct IMAPMessageRenderer {
    let raw: [UInt8]
    /// The header block, when found at the start (else found when asked: a `BODY[]` needs none).
    private let foundHeader: ArraySlice<UInt8>?
    /// The parts, read when made for an attribute that looks inside the message (``needsParts(_:)``).
    private let tree: MIMEPartTree?

    /// The message's header block (the blank line that ends it included) and body, as stored.
    var header: ArraySlice<UInt8> { foundHeader ?? MIMEPartTree.header(of: raw[...]) }
    var body: ArraySlice<UInt8> { raw[header.endIndex...] }

    /// A renderer for any attribute: every part of the message read.
    init(raw: [UInt8]) {
        let tree = MIMEPartTree(raw[...])
        self.init(raw: raw, header: tree.header, tree: tree)
    }

    /// A renderer for `attributes` alone: the parts are read only when one of them looks inside the message
    /// (``needsParts(_:)``); else only the top header block is found, and not even that for `BODY[]`, which is the
    /// stored bytes: `ENVELOPE` and `BODY[]` of every message so cost no reading of content types, parameters and
    /// parts (most of `FETCH 1:* (UID FLAGS ENVELOPE)`'s and `FETCH 1:* (BODY.PEEK[])`'s time before). The header
    /// and body are the same either way (``MIMEPartTree/header(of:limits:)``).
    init(raw: [UInt8], for attributes: [IMAPFetchAttribute]) {
        if Self.needsParts(attributes) {
            self.init(raw: raw)
        } else {
            let header = attributes.contains(where: Self.needsHeader) ? MIMEPartTree.header(of: raw[...]) : nil
            self.init(raw: raw, header: header, tree: nil)
        }
    }

    private init(raw: [UInt8], header: ArraySlice<UInt8>?, tree: MIMEPartTree?) {
        self.raw = raw
        foundHeader = header
        self.tree = tree
    }

    /// The message's part tree: the one read at the start, else read now.
    private var parts: MIMEPartTree { tree ?? MIMEPartTree(raw[...]) }

    /// Whether `attribute` needs the header block found: all but the stored bytes whole and what the caller gives.
    private static func needsHeader(_ attribute: IMAPFetchAttribute) -> Bool {
        switch attribute {
        case .rfc822, .flags, .uid, .rfc822Size, .internalDate: return false
        case .body(let section, _, _): return !(section.part.isEmpty && section.text == nil)
        default: return true
        }
    }

    /// Whether `attributes` look inside the message: its structure, a numbered part or a `BINARY` one. The rest
    /// (`ENVELOPE`, `RFC822*`, `BODY[]`, `BODY[HEADER...]`, `BODY[TEXT]`) need only the top header and body.
    static func needsParts(_ attributes: [IMAPFetchAttribute]) -> Bool {
        attributes.contains {
            switch $0 {
            case .bodyStructure, .binary, .binarySize: return true
            case .body(let section, _, _): return !section.part.isEmpty
            default: return false
            }
        }
    }

    /// Whether `attributes` need the message's bytes (anything beyond flags, UID, size and date).
    static func needsBytes(_ attributes: [IMAPFetchAttribute]) -> Bool {
        attributes.contains {
            switch $0 {
            case .flags, .uid, .rfc822Size, .internalDate: return false
            default: return true
            }
        }
    }

    /// Whether fetching `attributes` sets `\Seen` (a `BODY[...]` without `.PEEK`, `RFC822`, `RFC822.TEXT`).
    static func setsSeen(_ attributes: [IMAPFetchAttribute]) -> Bool {
        attributes.contains {
            switch $0 {
            case .body(_, _, let peek), .binary(_, _, let peek): return !peek
            case .rfc822, .rfc822Text: return true
            default: return false
            }
        }
    }

    /// The item one attribute asks for; flags, UID, size and date come from the caller (`nil` here).
    func item(_ attribute: IMAPFetchAttribute) -> IMAPFetchItem? {
        switch attribute {
        case .envelope: return .envelope(Self.envelope(IMAPHeaderBlock(header)))
        case .bodyStructure(let extensible): return .bodyStructure(Self.structure(parts, extensible: extensible), extensible: extensible)
        case .rfc822: return .rfc822(raw)
        case .rfc822Header: return .rfc822Header(Array(header))
        case .rfc822Text: return .rfc822Text(Array(body))
        case .body(let section, let partial, _) where section.part.isEmpty:
            // The message's own sections come from its header and body; `BODY[]` is the stored bytes themselves.
            let bytes = section.text == nil ? raw : section.bytes(header: header, body: body)
            return .body(section, origin: partial?.start, Self.cut(bytes, partial))
        case .body(let section, let partial, _):
            return .body(section, origin: partial?.start, section.bytes(of: parts).map { Self.cut($0, partial) })
        case .binary(let part, let partial, _):
            return .binary(part: part, origin: partial?.start, parts.part(part).map { Self.cut(Array($0.body), partial) })
        case .binarySize(let part):
            return .binarySize(part: part, UInt64(parts.part(part)?.body.count ?? 0))
        case .flags, .uid, .rfc822Size, .internalDate:
            return nil
        }
    }

    private static func cut(_ bytes: [UInt8], _ partial: IMAPPartial?) -> [UInt8] {
        guard let partial else { return bytes }
        let start = Int(Swift.min(partial.start, UInt64(bytes.count)))
        let end = Int(Swift.min(UInt64(start) + partial.length, UInt64(bytes.count)))
        return Array(bytes[start..<end])
    }

    // MARK: - Envelope

    static func envelope(_ header: IMAPHeaderBlock) -> IMAPEnvelope {
        let from = addresses(header.text("From"))
        let sender = header.text("Sender").map(addresses)
        let replyTo = header.text("Reply-To").map(addresses)
        return IMAPEnvelope(
            date: header.value("Date"), subject: header.value("Subject"), from: from,
            sender: sender?.isEmpty == false ? sender : nil, replyTo: replyTo?.isEmpty == false ? replyTo : nil,
            to: addresses(header.text("To")), cc: addresses(header.text("Cc")), bcc: addresses(header.text("Bcc")),
            inReplyTo: header.value("In-Reply-To"), messageID: header.value("Message-ID"))
    }

    private static func addresses(_ text: String?) -> [IMAPAddress] {
        guard let text, let list = try? AddressListParser.addressList(text) else { return [] }
        var out: [IMAPAddress] = []
        for entry in list {
            switch entry {
            case .mailbox(let address):
                out.append(address.imapAddress)
            case .group(let name, let members):
                out.append(IMAPAddress(mailbox: Array(name.utf8), host: nil))
                out += members.map(\.imapAddress)
                out.append(IMAPAddress(mailbox: nil, host: nil))
            }
        }
        return out
    }

    // MARK: - Structure

    static func structure(_ part: MIMEPartTree, extensible: Bool) -> IMAPBodyStructure {
        if part.type == "multipart" && !part.children.isEmpty {
            return .multipart(
                part.children.map { structure($0, extensible: extensible) }, subtype: part.subtype.uppercased(),
                extension: extensible
                    ? IMAPMultipartExtension(parameters: part.parameters, disposition: disposition(part)) : nil)
        }
        // Lines of the body, a last one without its line break counted too.
        let lines = UInt64(part.body.lazy.filter { $0 == 0x0a }.count + (part.body.last.map { $0 == 0x0a ? 0 : 1 } ?? 0))
        var kind = IMAPBodyPart.Kind.basic
        if part.isMessage, let inner = part.children.first {
            kind = .message(envelope(IMAPHeaderBlock(inner.header)), structure(inner, extensible: extensible), lines: lines)
        } else if part.type == "text" {
            kind = .text(lines: lines)
        }
        var parameters = part.parameters
        if part.type == "text" && !parameters.contains(where: { $0.0 == "charset" }) {
            parameters.insert(("charset", "us-ascii"), at: 0)
        }
        return .part(
            IMAPBodyPart(
                type: part.type.uppercased(), subtype: part.subtype.uppercased(), parameters: parameters,
                id: part.contentID, description: part.contentDescription,
                encoding: (part.encoding ?? "7bit").uppercased(), size: UInt64(part.body.count), kind: kind,
                extension: extensible ? IMAPBodyExtension(disposition: disposition(part)) : nil))
    }

    private static func disposition(_ part: MIMEPartTree) -> IMAPBodyDisposition? {
        part.disposition.map { IMAPBodyDisposition($0.value.uppercased(), parameters: $0.parameters) }
    }
}

extension IMAPSection {
    /// The bytes this section names in `tree`; nil when there is no such part.
    func bytes(of tree: MIMEPartTree) -> [UInt8]? {
        guard !self.part.isEmpty else { return bytes(header: tree.header, body: tree.body) }
        guard let part = tree.part(self.part) else { return nil }
        switch text {
        case nil:
            return Array(part.body)
        case .mime:
            return Array(part.header)
        case .header, .text, .headerFields, .headerFieldsNot:
            // HEADER, TEXT and HEADER.FIELDS of a part are those of the message it holds (message/rfc822).
            guard part.isMessage, let message = part.children.first else {
                switch text {
                case .headerFields, .headerFieldsNot: return [0x0d, 0x0a]
                default: return []
                }
            }
            return bytes(header: message.header, body: message.body)
        }
    }

    /// The bytes this section names in a message whose header block and body are `header` and `body`, the section
    /// naming no part (`BODY[]`, `BODY[HEADER]`, `BODY[TEXT]`, `BODY[HEADER.FIELDS (...)]`).
    func bytes(header: ArraySlice<UInt8>, body: ArraySlice<UInt8>) -> [UInt8] {
        switch text {
        case nil: return Array(header) + Array(body)
        case .mime, .header: return Array(header)
        case .text: return Array(body)
        case .headerFields(let names): return IMAPHeaderBlock(header).bytes(of: names, excluding: false)
        case .headerFieldsNot(let names): return IMAPHeaderBlock(header).bytes(of: names, excluding: true)
        }
    }
}

extension MailAddress {
    /// `name <@route:local@host>` as an envelope address.
    fileprivate var imapAddress: IMAPAddress {
        let at = email.lastIndex(of: "@")
        let mailbox = at.map { String(email[..<$0]) } ?? email
        let host = at.map { String(email[email.index(after: $0)...]) }
        return IMAPAddress(
            name: name.map { Array($0.utf8) }, route: route.map { Array($0.utf8) }, mailbox: Array(mailbox.utf8),
            host: host.map { Array($0.utf8) } ?? [])
    }
}
