/// A message split into its header fields (each with its folding, as received) and its body, for DKIM and DMARC.
/// Pure: bytes in, no allocation beyond the fields.
struct MessageHeaders: Sendable {
    /// One header field: its name as written and its whole text, `Name: value` with folded lines, without the
    /// final CRLF.
    struct Field: Sendable, Equatable {
        var name: String
        var raw: [UInt8]
    }

    /// Top to bottom.
    let fields: [Field]
    /// The bytes after the blank line (empty when there is none).
    let body: ArraySlice<UInt8>

    /// Splits `message` (CRLF line ends; a bare LF is taken as a line end too).
    init(_ message: [UInt8]) {
        var fields: [Field] = []
        var index = message.startIndex
        var current: [UInt8]?
        var bodyStart = message.endIndex
        while index < message.endIndex {
            let lineEnd = message[index...].firstIndex(of: UInt8(ascii: "\n")) ?? message.endIndex
            var line = message[index..<lineEnd]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let next = lineEnd < message.endIndex ? lineEnd + 1 : lineEnd
            if line.isEmpty {
                bodyStart = next
                break
            }
            if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t"), current != nil {
                current! += [UInt8(ascii: "\r"), UInt8(ascii: "\n")] + line
            } else {
                if let field = current.flatMap(Self.field) { fields.append(field) }
                current = Array(line)
            }
            index = next
        }
        if let field = current.flatMap(Self.field) { fields.append(field) }
        self.fields = fields
        body = message[bodyStart...]
    }

    private static func field(_ raw: [UInt8]) -> Field? {
        guard let colon = raw.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        var name = raw[..<colon]
        while name.last == UInt8(ascii: " ") || name.last == UInt8(ascii: "\t") { name = name.dropLast() }
        return Field(name: String(decoding: name, as: UTF8.self), raw: raw)
    }

    /// The value of `field` (after the colon), unfolded.
    static func value(of field: Field) -> String {
        guard let colon = field.raw.firstIndex(of: UInt8(ascii: ":")) else { return "" }
        let text = String(decoding: field.raw[(colon + 1)...], as: UTF8.self)
        return text.replacingOccurrences(of: "\r\n", with: "")
    }

    /// The fields named `name` (case-insensitive), top to bottom.
    func fields(named name: String) -> [Field] {
        fields.filter { $0.name.lowercased() == name.lowercased() }
    }
}
