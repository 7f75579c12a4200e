/// DKIM's two canonicalization algorithms (RFC 6376 section 3.4), for header fields and for the body. Pure.
public enum DKIMCanonicalization: String, Sendable, Equatable {
    case simple, relaxed

    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
    private static let crlf: [UInt8] = [UInt8(ascii: "\r"), UInt8(ascii: "\n")]

    /// One header field (name, colon, value, folding included, no final CRLF) as it enters the hash, with CRLF.
    public func header(_ raw: [UInt8]) -> [UInt8] {
        switch self {
        case .simple:
            return raw + Self.crlf
        case .relaxed:
            guard let colon = raw.firstIndex(of: UInt8(ascii: ":")) else { return raw + Self.crlf }
            let name = String(decoding: raw[..<colon], as: UTF8.self).lowercased()
                .trimmingTrailing { $0 == " " || $0 == "\t" }
            // Unfold, turn every run of WSP into one space, and drop WSP at the value's start and end.
            var value: [UInt8] = []
            var pendingSpace = false
            for byte in raw[(colon + 1)...] where byte != UInt8(ascii: "\r") && byte != UInt8(ascii: "\n") {
                if byte == Self.space || byte == Self.tab {
                    pendingSpace = true
                } else {
                    if pendingSpace && !value.isEmpty { value.append(Self.space) }
                    pendingSpace = false
                    value.append(byte)
                }
            }
            return Array(name.utf8) + [UInt8(ascii: ":")] + value + Self.crlf
        }
    }

    /// The body as it enters the body hash, cut to `limit` bytes when the signature has `l=`.
    public func body(_ body: some Collection<UInt8>) -> [UInt8] {
        var lines = Self.lines(body)
        if self == .relaxed {
            lines = lines.map { line in
                var out: [UInt8] = []
                var pendingSpace = false
                for byte in line {
                    if byte == Self.space || byte == Self.tab {
                        pendingSpace = true
                    } else {
                        if pendingSpace { out.append(Self.space) }
                        pendingSpace = false
                        out.append(byte)
                    }
                }
                return out  // WSP at the end of a line is dropped
            }
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        if lines.isEmpty { return self == .simple ? Self.crlf : [] }
        return lines.flatMap { $0 + Self.crlf }
    }

    /// The body's lines without their CRLF (a last line without one counts as a line).
    private static func lines(_ body: some Collection<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var line: [UInt8] = []
        var sawCR = false
        for byte in body {
            if byte == UInt8(ascii: "\n") && sawCR {
                line.removeLast()
                lines.append(line)
                line = []
                sawCR = false
                continue
            }
            sawCR = byte == UInt8(ascii: "\r")
            line.append(byte)
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

extension String {
    fileprivate func trimmingTrailing(while predicate: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, predicate(last) { text.removeLast() }
        return text
    }
}
