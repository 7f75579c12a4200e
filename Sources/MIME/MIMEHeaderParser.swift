/// Reads a header block byte by byte, as the HTTP parser reads a request: fed any chunks, it unfolds
/// continuation lines, accepts CRLF and bare LF line ends, and stops at the empty line that ends the block.
///
/// Header bytes are kept raw (as ISO-8859-1 scalars when not UTF-8); encoded words are decoded later by the
/// caller, field by field. A line without a colon that is not a continuation is skipped, as mail readers do.
struct MIMEHeaderParser {
    /// Raw (still folded-away) fields read so far.
    private(set) var fields: [(name: String, value: [UInt8])] = []
    /// Whether the empty line ending the block was read.
    private(set) var isComplete = false
    /// Bytes consumed so far, the ending empty line included once complete.
    private(set) var consumed = 0

    private let limits: MIMELimits
    /// Whether a continuation keeps the CRLF before it (a value as written, RFC 8621 §4.1.2.1's Raw form); a bare LF
    /// is kept as CRLF.
    private let keepsLineBreaks: Bool
    private var line: [UInt8] = []
    private var pending: (name: String, value: [UInt8])?

    init(limits: MIMELimits, keepsLineBreaks: Bool = false) {
        self.limits = limits
        self.keepsLineBreaks = keepsLineBreaks
    }

    /// Feeds bytes; returns how many of them belong to the header block (all of them until it completes).
    /// - Throws: ``MIMEError/headerTooLarge`` or ``MIMEError/tooManyHeaders``.
    @discardableResult
    mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(MIMEError) -> Int {
        var used = 0
        for byte in bytes {
            guard !isComplete else { break }
            used += 1
            consumed += 1
            guard consumed <= limits.maximumHeaderBytes else { throw .headerTooLarge }
            if byte == UInt8(ascii: "\n") {
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                try endLine()
            } else {
                line.append(byte)
            }
        }
        return used
    }

    /// Ends the block at the end of the input (a message without a body has no empty line).
    mutating func finish() throws(MIMEError) {
        guard !isComplete else { return }
        if !line.isEmpty {
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            try endLine()
        }
        try flush()
        isComplete = true
    }

    private mutating func endLine() throws(MIMEError) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            try flush()
            isComplete = true
            return
        }
        if line[0] == UInt8(ascii: " ") || line[0] == UInt8(ascii: "\t") {
            // A continuation: unfolding removes the line break only (RFC 5322 2.2.3).
            if keepsLineBreaks { pending?.value.append(contentsOf: [UInt8(ascii: "\r"), UInt8(ascii: "\n")]) }
            pending?.value.append(contentsOf: line)
            return
        }
        try flush()
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self).trimmingSpaces()
        // The byte, not `String.contains(_:)`, which Foundation answers with a locale-aware search: a third of the
        // time of reading a header block.
        guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: " ")) else { return }
        pending = (name, Array(line[(colon + 1)...]))
    }

    private mutating func flush() throws(MIMEError) {
        guard let field = pending else { return }
        pending = nil
        guard fields.count < limits.maximumHeaderCount else { throw .tooManyHeaders }
        fields.append((field.name, field.value))
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (RFC 5322's WSP), as header values and form fields are read.
    public func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
