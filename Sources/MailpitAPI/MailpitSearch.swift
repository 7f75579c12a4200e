import MIME
import MailStore
import Time

/// Mailpit's search syntax (`internal/storage/search.go`, `internal/tools/argsparser.go` at Mailpit 408b30d) read
/// into the store's typed ``MailFilter``: pure, fed text in tests, never SQL.
///
/// The rules, in the order Mailpit applies them to each word:
/// 1. The query splits at spaces outside double quotes; the quotes go (`subject:"two words"` is one word).
/// 2. A word that is empty once cleaned (``clean(_:)``) is skipped; a leading `-` or `!` (on a word longer than one
///    character) negates the word.
/// 3. `to:`, `from:`, `cc:`, `bcc:`, `reply-to:`, `message-id:` match a substring of that field, `addressed:` of any
///    address field; `Bcc` is the field as Mailpit stores it, with the envelope recipients `To` and `Cc` do not name
///    (``MailpitSearch/bcc(_:)``); `subject:` a substring of the subject (its text taken as written); `tag:` a tag
///    (ASCII case ignored). An operator with nothing after it matches everything.
/// 4. `is:read`, `is:unread`, `is:tagged`, `has:attachment(s)`, `has:inline(s)`: read status, any tag, a part to
///    download, a part shown in the body.
/// 5. `after:` and `before:` take a date (`2024-01-31`, `2024/01/31`, `2024-01-31T10:00[:00][Z|±hh:mm]`, a space for
///    the `T` in quotes; UTC unless an offset is given): arrival at or after, at or before that second. A date that
///    does not parse is ignored, as Mailpit ignores it.
/// 6. `larger:` and `smaller:` take a size (`100`, `1.5k`, `2mb`; `k`/`kb`, `m`/`mb`): strictly larger or smaller. A
///    size that does not parse makes the word plain text, as in Mailpit.
/// 7. Anything else is text: a substring of the addresses, subject or body (ASCII case ignored).
public enum MailpitSearch {
    /// The filter `query` asks for: every word's condition, all of them to hold (no word: every message).
    public static func filter(_ query: String) -> MailFilter {
        .all(words(query).compactMap(condition))
    }

    /// The words of `query`: split at spaces outside double quotes, the quotes removed, each trimmed, empty ones
    /// dropped (Mailpit's `ArgsParser`).
    public static func words(_ query: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        func finish() {
            let text = String(word.filter { $0 != "\"" }).trimmingSpaces()
            if !text.isEmpty { words.append(text) }
            word = ""
        }
        for character in query {
            if character == "\"" {
                quoted.toggle()
                word.append(character)
            } else if !quoted && character == " " {
                finish()
            } else {
                word.append(character)
            }
        }
        finish()
        return words
    }

    /// `text` as Mailpit cleans a search value: line breaks, tabs and `>`, `<`, `"`, `,`, `;`, `(`, `)` as spaces,
    /// runs of white space one space, trimmed, lower-cased.
    public static func clean(_ text: String) -> String {
        let spaced = text.map { character -> Character in
            switch character {
            case "\r", "\n", "\t", ">", "<", "\"", ",", ";", "(", ")", "\u{FEFF}": return " "
            default: return character
            }
        }
        return String(spaced).split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
    }

    /// The condition of one word; nil when the word asks for nothing.
    static func condition(_ word: String) -> MailFilter? {
        guard !clean(word).isEmpty else { return nil }
        var word = Substring(word)
        var negated = false
        if word.count > 1, word.first == "-" || word.first == "!" {
            negated = true
            word = word.dropFirst()
        }
        guard let positive = positiveCondition(String(word)) else { return nil }
        switch positive {
        case .negatable(let filter): return negated ? .none([filter]) : filter
        case .paired(let yes, let no): return negated ? no : yes
        }
    }

    private enum Condition {
        /// A condition whose negation is NOT.
        case negatable(MailFilter)
        /// A condition with its own negation (read status, dates, sizes).
        case paired(MailFilter, MailFilter)
    }

    private static func positiveCondition(_ word: String) -> Condition? {
        let lower = word.lowercased()
        func value(after prefix: String) -> String { clean(String(word.dropFirst(prefix.count))) }
        let fields: [(String, (String) -> MailFilter)] = [
            ("to:", MailFilter.to), ("from:", MailFilter.from), ("cc:", MailFilter.cc), ("bcc:", bcc),
            ("reply-to:", MailFilter.replyTo), ("message-id:", MailFilter.messageID),
            ("addressed:", { .any([.to($0), .from($0), .cc($0), bcc($0), .replyTo($0)]) }),
            ("tag:", { .hasKeywordIgnoringCase(MailTag.keyword($0) ?? $0) }),
        ]
        for (prefix, make) in fields where lower.hasPrefix(prefix) {
            let text = value(after: prefix)
            return text.isEmpty ? nil : .negatable(make(text))
        }
        if lower.hasPrefix("subject:") {
            let text = String(word.dropFirst("subject:".count))
            return text.isEmpty ? nil : .negatable(.subject(text))
        }
        switch lower {
        case "is:read": return .paired(.hasKeyword("$seen"), .notKeyword("$seen"))
        case "is:unread": return .paired(.notKeyword("$seen"), .hasKeyword("$seen"))
        case "is:tagged": return .paired(.tagged(true), .tagged(false))
        case "has:inline", "has:inlines": return .paired(.hasInlinePart(true), .hasInlinePart(false))
        case "has:attachment", "has:attachments": return .paired(.hasDownloadPart(true), .hasDownloadPart(false))
        default: break
        }
        if lower.hasPrefix("after:") {
            guard let second = date(value(after: "after:")) else { return nil }
            return .paired(.after(second), .before(second + 1))
        }
        if lower.hasPrefix("before:") {
            guard let second = date(value(after: "before:")) else { return nil }
            return .paired(.before(second + 1), .after(second))
        }
        if lower.hasPrefix("larger:"), let size = size(value(after: "larger:")) {
            return .paired(.minSize(size + 1), .maxSize(size))
        }
        if lower.hasPrefix("smaller:"), let size = size(value(after: "smaller:")) {
            return .paired(.maxSize(size), .minSize(size + 1))
        }
        let text = clean(word)
        return .negatable(.any([.text(text), bcc(text), .replyTo(text)]))
    }

    /// Mailpit's `Bcc`: the field, and the envelope recipients the `To` and `Cc` fields do not name, which Mailpit adds
    /// to the `Bcc` of the message it stores (`internal/smtpd/main.go`, "add missing email addresses to Bcc").
    static func bcc(_ text: String) -> MailFilter { .any([.bcc(text), .unnamedRecipient(text)]) }

    /// Bytes of a Mailpit size (`^(\d+)(\.\d+)?\s?([a-z]{1,2})?$`, lower-cased: none, `k`/`kb`, `m`/`mb`); nil when
    /// it is not one or comes to 0.
    static func size(_ text: String) -> Int64? {
        var digits = Substring(text)
        var unit = ""
        while let last = digits.last, last.isLetter, last.isASCII {
            unit.insert(last, at: unit.startIndex)
            digits.removeLast()
        }
        if digits.last == " " { digits.removeLast() }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard unit.count <= 2, (1...2).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
            let number = Double(digits)
        else { return nil }
        let factor: Double
        switch unit {
        case "": factor = 1
        case "k", "kb": factor = 1024
        case "m", "mb": factor = 1024 * 1024
        default: return nil
        }
        let bytes = number * factor
        guard bytes >= 1, bytes < 9e15 else { return nil }
        return Int64(bytes)
    }

    /// The Unix second a search date names (see the type's rule 5); nil when it is no such date.
    static func date(_ text: String) -> Int64? {
        let text = text.uppercased()
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ (48...57).contains(bytes[$0]) }) else {
                return nil
            }
            return range.reduce(0) { $0 * 10 + Int64(bytes[$1] - 48) }
        }
        guard bytes.count >= 10, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            bytes[4] == bytes[7], bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: "/"),
            (1...12).contains(month), (1...31).contains(day), year >= 1970
        else { return nil }
        let midnight = CivilDate.days(year: year, month: month, day: day) * 86_400
        guard CivilDate.fromDays(midnight / 86_400) == (year, Int(month), Int(day)) else { return nil }
        if bytes.count == 10 { return midnight }
        guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), let hour = number(11..<13),
            bytes.count >= 16, bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16), hour < 24, minute < 60
        else { return nil }
        var position = 16
        var second: Int64 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: ":") {
            guard let value = number(17..<19), value < 60 else { return nil }
            second = value
            position = 19
        }
        var offset: Int64 = 0
        if position < bytes.count {
            let zone = bytes[position]
            if zone == UInt8(ascii: "Z"), position + 1 == bytes.count {
                offset = 0
            } else if zone == UInt8(ascii: "+") || zone == UInt8(ascii: "-"), bytes.count == position + 6,
                let hours = number(position + 1..<position + 3), bytes[position + 3] == UInt8(ascii: ":"),
                let minutes = number(position + 4..<position + 6), hours < 24, minutes < 60
            {
                offset = (hours * 3600 + minutes * 60) * (zone == UInt8(ascii: "+") ? 1 : -1)
            } else {
                return nil
            }
        }
        return midnight + hour * 3600 + minute * 60 + second - offset
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
