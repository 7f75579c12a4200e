/// A message's (or part's) header block read leniently, as it was stored: each field's name and raw lines (folding and
/// CRLF kept), so that `BODY[HEADER.FIELDS (...)]` returns the very bytes, and each value unfolded for `ENVELOPE`.
struct IMAPHeaderBlock {
    /// Each field's name as written and its raw bytes, continuation lines and line ends included.
    let fields: [(name: String, raw: ArraySlice<UInt8>)]
    /// Each field's name lower-cased, in the order of `fields`: made once, not once per field per lookup (an
    /// `ENVELOPE` looks up ten names).
    private let lowercasedNames: [String]

    /// Reads `header` (up to and including the blank line that ends it, or all of it when there is none).
    init(_ header: ArraySlice<UInt8>) {
        var fields: [(name: String, raw: ArraySlice<UInt8>)] = []
        var index = header.startIndex
        while index < header.endIndex {
            let start = index
            var end = Self.lineEnd(header, from: index)
            if end - start <= 2 && (header[start] == 0x0d || header[start] == 0x0a) { break }  // the blank line
            while end < header.endIndex && (header[end] == 0x20 || header[end] == 0x09) {
                end = Self.lineEnd(header, from: end)
            }
            let line = header[start..<end]
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                let written = header[start..<colon]
                var name = String(decoding: written, as: UTF8.self)
                // Trimmed only when it starts or ends with white space, which a field name seldom does.
                if let first = written.first, let last = written.last,
                    first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
                {
                    name = name.trimmingCharacters(in: " \t")
                }
                if !name.isEmpty { fields.append((name, line)) }
            }
            index = end
        }
        self.fields = fields
        lowercasedNames = fields.map { $0.name.lowercased() }
    }

    /// The index after the line that starts at `index` (its LF included).
    private static func lineEnd(_ bytes: ArraySlice<UInt8>, from index: Int) -> Int {
        guard let newline = bytes[index...].firstIndex(of: 0x0a) else { return bytes.endIndex }
        return newline + 1
    }

    /// The first field named `name` (case-insensitive), unfolded, without leading and trailing white space; nil when
    /// there is none.
    func value(_ name: String) -> [UInt8]? {
        values(name).first
    }

    /// Every field named `name` (case-insensitive), in order, each unfolded and trimmed.
    func values(_ name: String) -> [[UInt8]] {
        let wanted = name.lowercased()
        return fields.indices.filter { lowercasedNames[$0] == wanted }.compactMap(value(at:))
    }

    /// Every field's value, in order, each unfolded and trimmed (what `SEARCH TEXT` reads of the header).
    func values() -> [[UInt8]] {
        fields.indices.compactMap(value(at:))
    }

    /// The value of the field at `index`, unfolded and trimmed.
    private func value(at index: Int) -> [UInt8]? {
        let raw = fields[index].raw
        guard let colon = raw.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        var value: [UInt8] = []
        value.reserveCapacity(raw.endIndex - colon)
        for byte in raw[(colon + 1)...] where byte != 0x0d && byte != 0x0a { value.append(byte) }
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = value.firstIndex(where: { !isBlank($0) }) else { return [] }
        let last = value.lastIndex(where: { !isBlank($0) }) ?? first
        return first == 0 && last == value.count - 1 ? value : Array(value[first...last])
    }

    /// The value of `name` as text (UTF-8, or Latin-1 bytes as they are), nil when absent.
    func text(_ name: String) -> String? {
        value(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The fields named in `names` (upper case), or all but them when `excluding`, as written, then the blank line.
    func bytes(of names: [String], excluding: Bool) -> [UInt8] {
        let wanted = Set(names)
        var out: [UInt8] = []
        for field in fields where wanted.contains(field.name.uppercased()) != excluding {
            out += field.raw
        }
        return out + [0x0d, 0x0a]
    }
}

extension String {
    /// The text without the given characters at either end.
    fileprivate func trimmingCharacters(in characters: String) -> String {
        let set = Set(characters)
        guard let first = firstIndex(where: { !set.contains($0) }), let last = lastIndex(where: { !set.contains($0) })
        else { return "" }
        return String(self[first...last])
    }
}
