import Foundation

/// A structured header value with parameters, such as `Content-Type` and `Content-Disposition`:
/// `text/plain; charset="utf-8"`, with RFC 2231 extended and continued parameters (`filename*0*=utf-8''a%20b`).
struct HeaderParameters {
    /// The value before the first `;`, lower-cased.
    var value: String
    /// Parameters by lower-cased name, decoded.
    var parameters: [String: String]

    init(_ text: String) {
        var pieces = Self.split(text)
        value = pieces.isEmpty ? "" : pieces.removeFirst().trimmingSpaces().lowercased()
        var plain: [String: String] = [:]
        var extended: [String: [(index: Int, encoded: Bool, value: String)]] = [:]
        for piece in pieces {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            var name = String(piece[..<equals]).trimmingSpaces().lowercased()
            var raw = String(piece[piece.index(after: equals)...]).trimmingSpaces()
            if raw.hasPrefix("\""), raw.hasSuffix("\""), raw.count >= 2 {
                raw = String(raw.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            let encoded = name.hasSuffix("*")
            if encoded { name.removeLast() }
            if let star = name.lastIndex(of: "*"), let index = Int(name[name.index(after: star)...]) {
                extended[String(name[..<star]), default: []].append((index, encoded, raw))
            } else if encoded {
                extended[name, default: []].append((0, true, raw))
            } else {
                plain[name] = raw
            }
        }
        for (name, sections) in extended {
            plain[name] = Self.join(sections.sorted { $0.index < $1.index })
        }
        parameters = plain
    }

    subscript(_ name: String) -> String? { parameters[name] }

    /// RFC 2231: the first encoded section starts with `charset'language'`; encoded sections are percent-encoded.
    private static func join(_ sections: [(index: Int, encoded: Bool, value: String)]) -> String {
        var charset: String?
        var bytes: [UInt8] = []
        for (position, section) in sections.enumerated() {
            var value = Substring(section.value)
            if position == 0, section.encoded {
                let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3 {
                    charset = String(parts[0])
                    value = parts[2]
                }
            }
            bytes += section.encoded ? percentDecoded(value) : Array(value.utf8)
        }
        return Charsets.decode(bytes, charset: charset)
    }

    private static func percentDecoded(_ text: Substring) -> [UInt8] {
        var output: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%"), bytes.count >= 2,
                let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
            {
                output.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                output.append(byte)
            }
        }
        return output
    }

    /// Splits at `;` outside quotes.
    private static func split(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quoted {
                current.append(character)
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if character == ";" && !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        return pieces.filter { !$0.trimmingSpaces().isEmpty || pieces.first == $0 }
    }
}
