import Foundation

/// A DKIM tag list (RFC 6376 section 3.2): `tag=value; tag=value`, as in DKIM-Signature and key records. Pure.
struct DKIMTagList: Sendable, Equatable {
    /// Tag names and values, whitespace around them removed, in order.
    let tags: [(name: String, value: String)]

    /// Parses `text`; nil when a tag is malformed or repeated (RFC 6376: a duplicate tag is an error).
    init?(_ text: String) {
        var tags: [(String, String)] = []
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            let name = trimmed[..<equals].trimmingCharacters(in: .whitespacesAndNewlines)
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, !tags.contains(where: { $0.0 == name }) else { return nil }
            tags.append((name, value))
        }
        self.tags = tags
    }

    static func == (lhs: DKIMTagList, rhs: DKIMTagList) -> Bool {
        lhs.tags.elementsEqual(rhs.tags) { $0 == $1 }
    }

    subscript(_ name: String) -> String? { tags.first { $0.name == name }?.value }

    /// A value with every whitespace character removed (base64 values may be folded).
    func compact(_ name: String) -> String? {
        self[name].map { String($0.unicodeScalars.filter { !CharacterSetWhitespace.contains($0) }) }
    }
}

/// Whitespace inside folded tag values.
enum CharacterSetWhitespace {
    static func contains(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\n"
    }
}
