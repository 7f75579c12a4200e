import MailDoor

/// Writes ``IMAPResponse``s as bytes (RFC 9051 §7, §9). Each string is written in the form its content allows:
/// an atom where the grammar takes one and the bytes are atom characters, a quoted string when they are text
/// without CR, LF or NUL (and 7-bit unless ``utf8Quoted``), a literal otherwise; `BINARY` data holding a NUL goes
/// as a `literal8`.
public struct IMAPResponseEncoder: Sendable {
    /// Whether quoted strings may carry UTF-8 (after `ENABLE IMAP4rev2` or `UTF8=ACCEPT`); before, 8-bit text goes
    /// as a literal, as RFC 3501's `quoted` is 7-bit.
    public var utf8Quoted: Bool
    /// The longest string written quoted; a longer one goes as a literal.
    public static let maxQuotedBytes = 1024

    public init(utf8Quoted: Bool = false) {
        self.utf8Quoted = utf8Quoted
    }

    /// The bytes of `response`, CRLF included.
    public func encode(_ response: IMAPResponse) -> [UInt8] {
        var out: [UInt8] = []
        encode(response, into: &out)
        return out
    }

    /// Appends the bytes of `response`, CRLF included, to `out`.
    public func encode(_ response: IMAPResponse, into out: inout [UInt8]) {
        var writer = IMAPResponseWriter(utf8Quoted: utf8Quoted, out: out)
        out = []
        switch response {
        case .tagged(let tag, let status):
            writer.raw(tag)
            writer.space()
            writer.status(status)
        case .continuation(.text(let text)):
            writer.raw("+ ")
            writer.text(text.isEmpty ? "Ready" : text)
        case .continuation(.challenge(let data)):
            writer.raw("+ ")
            writer.raw(data.base64)
        case .untagged(let untagged):
            writer.raw("* ")
            writer.untagged(untagged)
        }
        writer.raw("\r\n")
        out = writer.out
    }
}

/// The writer behind ``IMAPResponseEncoder``: one response's bytes, appended to `out`.
struct IMAPResponseWriter {
    let utf8Quoted: Bool
    var out: [UInt8]

    mutating func raw(_ text: String) { out.append(contentsOf: text.utf8) }

    mutating func space() { out.append(ASCII.space) }

    mutating func number<N: BinaryInteger>(_ value: N) { raw(String(value)) }

    /// Human text (`resp-text`'s `text`): CR, LF and NUL become spaces, so no text can end a line early.
    mutating func text(_ text: String) {
        for byte in text.utf8 { out.append(byte == ASCII.cr || byte == ASCII.lf || byte == 0 ? ASCII.space : byte) }
    }

    /// `string`: quoted when the bytes allow it, else a literal.
    mutating func string(_ bytes: some Collection<UInt8>) {
        if bytes.count <= IMAPResponseEncoder.maxQuotedBytes && canQuote(bytes) {
            out.append(ASCII.quote)
            for byte in bytes {
                if byte == ASCII.quote || byte == ASCII.backslash { out.append(ASCII.backslash) }
                out.append(byte)
            }
            out.append(ASCII.quote)
        } else {
            literal(bytes, binary: false)
        }
    }

    mutating func string(_ text: String) { string(Array(text.utf8)) }

    /// `nstring`: `NIL` or a string.
    mutating func nstring(_ bytes: [UInt8]?) {
        guard let bytes else { return raw("NIL") }
        string(bytes)
    }

    mutating func nstring(_ text: String?) { nstring(text.map { Array($0.utf8) }) }

    /// `astring`: an atom when the text is one (and not `NIL`), else a string.
    mutating func astring(_ text: String) {
        let bytes = Array(text.utf8)
        if !bytes.isEmpty && bytes.allSatisfy(IMAPCharacters.isAstringChar) && text.uppercased() != "NIL" {
            out.append(contentsOf: bytes)
        } else {
            string(bytes)
        }
    }

    /// `{n}` CRLF and the bytes; `~{n}` for binary data holding a NUL.
    mutating func literal(_ bytes: some Collection<UInt8>, binary: Bool) {
        raw(binary && bytes.contains(0) ? "~{\(bytes.count)}\r\n" : "{\(bytes.count)}\r\n")
        out.append(contentsOf: bytes)
    }

    private func canQuote(_ bytes: some Collection<UInt8>) -> Bool {
        var eightBit = false
        for byte in bytes {
            if byte == 0 || byte == ASCII.cr || byte == ASCII.lf { return false }
            if byte >= 0x80 { eightBit = true }
        }
        return !eightBit || (utf8Quoted && String(validating: Array(bytes), as: UTF8.self) != nil)
    }

    /// `(a b c)`, each element written by `write`.
    mutating func list<T>(_ items: [T], _ write: (inout IMAPResponseWriter, T) -> Void) {
        out.append(ASCII.openParen)
        for (index, item) in items.enumerated() {
            if index > 0 { space() }
            write(&self, item)
        }
        out.append(ASCII.closeParen)
    }

    mutating func status(_ status: IMAPStatusResponse) {
        raw(status.kind.rawValue)
        if let code = status.code {
            raw(" [")
            text(code.text)
            raw("]")
        }
        if !status.text.isEmpty || status.code == nil {
            space()
            text(status.text.isEmpty ? status.kind.rawValue : status.text)
        }
    }

    mutating func untagged(_ response: IMAPUntaggedResponse) {
        switch response {
        case .condition(let status):
            self.status(status)
        case .capability(let names):
            raw((["CAPABILITY"] + names).joined(separator: " "))
        case .id(let pairs):
            raw("ID (")
            for (index, pair) in pairs.enumerated() {
                if index > 0 { space() }
                string(pair.field)
                space()
                string(pair.value)
            }
            raw(")")
        case .enabled(let names):
            raw((["ENABLED"] + names).joined(separator: " "))
        case .flags(let flags):
            raw("FLAGS ")
            list(flags) { $0.raw($1.text) }
        case .exists(let count):
            raw("\(count) EXISTS")
        case .recent(let count):
            raw("\(count) RECENT")
        case .expunge(let number):
            raw("\(number) EXPUNGE")
        case .list(let item):
            raw("LIST ")
            listItem(item)
        case .lsub(let item):
            raw("LSUB ")
            listItem(item)
        case .mailboxStatus(let mailbox, let values):
            raw("STATUS ")
            mailboxName(mailbox)
            space()
            list(values) { $0.raw("\($1.item.rawValue) \($1.value)") }
        case .search(let numbers):
            raw("SEARCH")
            for number in numbers { raw(" \(number)") }
        case .sort(let numbers):
            raw("SORT")
            for number in numbers { raw(" \(number)") }
        case .thread(let threads):
            raw(threads.isEmpty ? "THREAD" : "THREAD ")
            for thread in threads { threadNode(thread) }
        case .esearch(let result):
            esearch(result)
        case .fetch(let number, let items):
            raw("\(number) FETCH ")
            list(items) { $0.fetchItem($1) }
        case .namespace(let personal, let other, let shared):
            raw("NAMESPACE")
            for namespaces in [personal, other, shared] {
                space()
                guard let namespaces else {
                    raw("NIL")
                    continue
                }
                out.append(ASCII.openParen)
                for namespace in namespaces {
                    out.append(ASCII.openParen)
                    string(namespace.prefix)
                    space()
                    delimiter(namespace.delimiter)
                    out.append(ASCII.closeParen)
                }
                out.append(ASCII.closeParen)
            }
        }
    }

    private mutating func delimiter(_ delimiter: Character?) {
        guard let delimiter else { return raw("NIL") }
        string(String(delimiter))
    }

    /// `"(" number [SP children] ")"`: one reply follows its parent in the same parentheses (`(1 2)`), several
    /// are each in their own (`(1 (2)(3))`), RFC 5256 §4.
    private mutating func threadNode(_ node: IMAPThreadNode) {
        out.append(ASCII.openParen)
        threadBody(node)
        out.append(ASCII.closeParen)
    }

    private mutating func threadBody(_ node: IMAPThreadNode) {
        raw("\(node.number)")
        if node.children.count == 1 {
            space()
            threadBody(node.children[0])
        } else if !node.children.isEmpty {
            space()
            for child in node.children { threadNode(child) }
        }
    }

    private mutating func listItem(_ item: IMAPListItem) {
        list(item.attributes) { $0.raw($1) }
        space()
        delimiter(item.delimiter)
        space()
        mailboxName(item.name)
        if !item.childInfo.isEmpty {
            raw(" (\"CHILDINFO\" ")
            list(item.childInfo) { $0.string($1) }
            raw(")")
        }
    }

    /// A mailbox name: in UTF-8 once the client enabled IMAP4rev2, else in modified UTF-7 (RFC 3501 §5.1.3).
    private mutating func mailboxName(_ name: IMAPMailboxName) {
        astring(utf8Quoted ? name.name : IMAPModifiedUTF7.encode(name.name))
    }

    private mutating func esearch(_ result: IMAPESearchResult) {
        raw("ESEARCH (TAG ")
        string(result.tag)
        raw(")")
        if result.uid { raw(" UID") }
        if let min = result.min { raw(" MIN \(min)") }
        if let max = result.max { raw(" MAX \(max)") }
        if let count = result.count { raw(" COUNT \(count)") }
        if let all = result.all { raw(" ALL \(all.text)") }
    }
}
