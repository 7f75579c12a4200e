import MailDoor

/// `FETCH` data: the items, the envelope and the body structure (RFC 9051 §7.5.2).
extension IMAPResponseWriter {
    mutating func fetchItem(_ item: IMAPFetchItem) {
        switch item {
        case .flags(let flags):
            raw("FLAGS ")
            list(flags) { $0.raw($1.text) }
        case .uid(let uid):
            raw("UID \(uid)")
        case .internalDate(let date):
            raw("INTERNALDATE \(date.text)")
        case .rfc822Size(let size):
            raw("RFC822.SIZE \(size)")
        case .envelope(let envelope):
            raw("ENVELOPE ")
            self.envelope(envelope)
        case .bodyStructure(let structure, let extensible):
            raw(extensible ? "BODYSTRUCTURE " : "BODY ")
            body(structure, extensible: extensible)
        case .body(let section, let origin, let bytes):
            raw("BODY[")
            self.section(section)
            raw("]")
            if let origin { raw("<\(origin)>") }
            space()
            nstring(bytes)
        case .binary(let part, let origin, let bytes):
            raw("BINARY[\(part.map(String.init).joined(separator: "."))]")
            if let origin { raw("<\(origin)>") }
            space()
            if let bytes { literal(bytes, binary: true) } else { raw("NIL") }
        case .binarySize(let part, let size):
            raw("BINARY.SIZE[\(part.map(String.init).joined(separator: "."))] \(size)")
        case .rfc822(let bytes):
            raw("RFC822 ")
            nstring(bytes)
        case .rfc822Header(let bytes):
            raw("RFC822.HEADER ")
            nstring(bytes)
        case .rfc822Text(let bytes):
            raw("RFC822.TEXT ")
            nstring(bytes)
        }
    }

    private mutating func section(_ section: IMAPSection) {
        raw(section.part.map(String.init).joined(separator: "."))
        guard let text = section.text else { return }
        if !section.part.isEmpty { raw(".") }
        switch text {
        case .header: raw("HEADER")
        case .text: raw("TEXT")
        case .mime: raw("MIME")
        case .headerFields(let names), .headerFieldsNot(let names):
            if case .headerFields = text { raw("HEADER.FIELDS ") } else { raw("HEADER.FIELDS.NOT ") }
            list(names) { $0.astring($1) }
        }
    }

    mutating func envelope(_ envelope: IMAPEnvelope) {
        out.append(ASCII.openParen)
        nstring(envelope.date)
        space()
        nstring(envelope.subject)
        for addresses in [envelope.from, envelope.sender, envelope.replyTo, envelope.to, envelope.cc, envelope.bcc] {
            space()
            if addresses.isEmpty {
                raw("NIL")
            } else {
                out.append(ASCII.openParen)
                for address in addresses {
                    out.append(ASCII.openParen)
                    nstring(address.name)
                    space()
                    nstring(address.route)
                    space()
                    nstring(address.mailbox)
                    space()
                    nstring(address.host)
                    out.append(ASCII.closeParen)
                }
                out.append(ASCII.closeParen)
            }
        }
        space()
        nstring(envelope.inReplyTo)
        space()
        nstring(envelope.messageID)
        out.append(ASCII.closeParen)
    }

    mutating func body(_ structure: IMAPBodyStructure, extensible: Bool) {
        out.append(ASCII.openParen)
        switch structure {
        case .multipart(let parts, let subtype, let ext):
            for part in parts { body(part, extensible: extensible) }
            space()
            string(subtype.uppercased())
            if extensible, let ext {
                space()
                parameters(ext.parameters)
                extensionTail(ext.disposition, ext.language, ext.location)
            }
        case .part(let part):
            string(part.type.uppercased())
            space()
            string(part.subtype.uppercased())
            space()
            parameters(part.parameters)
            space()
            nstring(part.id)
            space()
            nstring(part.description)
            space()
            string(part.encoding.uppercased())
            space()
            number(part.size)
            switch part.kind {
            case .basic:
                break
            case .text(let lines):
                raw(" \(lines)")
            case .message(let envelope, let inner, let lines):
                space()
                self.envelope(envelope)
                space()
                body(inner, extensible: extensible)
                raw(" \(lines)")
            }
            if extensible, let ext = part.extension {
                space()
                nstring(ext.md5)
                extensionTail(ext.disposition, ext.language, ext.location)
            }
        }
        out.append(ASCII.closeParen)
    }

    /// What both kinds of extension data end with: ` disposition language location`.
    private mutating func extensionTail(
        _ disposition: IMAPBodyDisposition?, _ language: [String], _ location: String?
    ) {
        space()
        self.disposition(disposition)
        space()
        self.language(language)
        space()
        nstring(location)
    }

    private mutating func parameters(_ parameters: [(String, String)]) {
        guard !parameters.isEmpty else { return raw("NIL") }
        list(parameters) { writer, pair in
            writer.string(pair.0.uppercased())
            writer.space()
            writer.string(pair.1)
        }
    }

    private mutating func disposition(_ disposition: IMAPBodyDisposition?) {
        guard let disposition else { return raw("NIL") }
        out.append(ASCII.openParen)
        string(disposition.value.uppercased())
        space()
        parameters(disposition.parameters)
        out.append(ASCII.closeParen)
    }

    private mutating func language(_ languages: [String]) {
        switch languages.count {
        case 0: raw("NIL")
        case 1: string(languages[0])
        default: list(languages) { $0.string($1) }
        }
    }
}
