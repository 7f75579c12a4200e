import Foundation

/// Address headers (RFC 5322 3.4) of received mail as mail readers take them, to show them: read by the strict
/// ``AddressListParser`` when the field is well formed; otherwise, best effort: `Name <a@b>`, `"Last, First" <c@d>`,
/// bare `e@f`, groups (`team: g@h, i@j;`), comments in parentheses; display names with encoded words decoded.
/// Nothing decides on what the best effort reads: the sender check reads its fields strictly or refuses them.
enum AddressList {
    static func parse(_ text: String) -> [MailAddress] {
        if let strict = try? AddressListParser.addressList(text) { return strict.flatMap(\.mailboxes) }
        return split(text).compactMap(address)
    }

    /// One mailbox, or nil for an empty piece or a group's name alone.
    private static func address(_ piece: String) -> MailAddress? {
        var text = withoutComments(piece).trimmingSpaces()
        // A group: drop `name:` in front and `;` behind.
        if let colon = groupColon(text) { text = String(text[text.index(after: colon)...]).trimmingSpaces() }
        while text.hasSuffix(";") { text = String(text.dropLast()).trimmingSpaces() }
        guard !text.isEmpty else { return nil }
        if let open = text.lastIndex(of: "<"), let close = text[open...].firstIndex(of: ">") {
            let email = String(text[text.index(after: open)..<close]).trimmingSpaces()
            var name = String(text[..<open]).trimmingSpaces()
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 {
                name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                    .replacingOccurrences(of: "\\\\", with: "\\")
            }
            name = EncodedWords.decode(name).trimmingSpaces()
            guard !email.isEmpty else { return nil }
            return MailAddress(name: name.isEmpty ? nil : name, email: email)
        }
        guard text.contains("@"), !text.contains(" ") else { return nil }
        return MailAddress(email: text)
    }

    /// The colon of `group:` when it comes before any `@`, `<` or quote.
    private static func groupColon(_ text: String) -> String.Index? {
        for index in text.indices {
            switch text[index] {
            case ":": return index
            case "@", "<", "\"": return nil
            default: continue
            }
        }
        return nil
    }

    /// Splits at commas outside quotes, angle brackets and comments.
    private static func split(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false, angle = 0, comment = 0, escaped = false
        for character in text {
            if escaped {
                escaped = false
                current.append(character)
                continue
            }
            switch character {
            case "\\" where quoted || comment > 0: escaped = true
            case "\"" where comment == 0: quoted.toggle()
            case "<" where !quoted && comment == 0: angle += 1
            case ">" where !quoted && comment == 0: angle = max(0, angle - 1)
            case "(" where !quoted: comment += 1
            case ")" where !quoted: comment = max(0, comment - 1)
            case "," where !quoted && angle == 0 && comment == 0:
                pieces.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        pieces.append(current)
        return pieces
    }

    /// `text` without `( ... )` comments outside quotes.
    static func withoutComments(_ text: String) -> String {
        var output = ""
        var quoted = false, depth = 0, escaped = false
        for character in text {
            if escaped {
                escaped = false
                if depth == 0 { output.append(character) }
                continue
            }
            if character == "\\" && (quoted || depth > 0) {
                escaped = true
                if depth == 0 { output.append(character) }
                continue
            }
            if character == "\"" && depth == 0 { quoted.toggle() }
            if !quoted && character == "(" { depth += 1; continue }
            if !quoted && character == ")" && depth > 0 { depth -= 1; continue }
            if depth == 0 { output.append(character) }
        }
        return output
    }

    /// Message ids without angle brackets: every `<...>`, or the whitespace-separated words when there is none.
    static func messageIDs(_ text: String) -> [String] {
        var ids: [String] = []
        var rest = Substring(withoutComments(text))
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let id = String(rest[rest.index(after: open)..<close]).trimmingSpaces()
            if !id.isEmpty { ids.append(id) }
            rest = rest[rest.index(after: close)...]
        }
        if ids.isEmpty {
            ids = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init).filter { $0.contains("@") }
        }
        return ids
    }
}
