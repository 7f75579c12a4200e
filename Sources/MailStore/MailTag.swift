/// Mailpit's tags as the store keeps them: a tag is a keyword of the message, the same keyword JMAP and IMAP see
/// (issue 71). A tag is what Mailpit's `CleanTag` keeps (letters, digits, `-`, `_`, `.`, `@` and single spaces, at most
/// 100 characters); a keyword holds no space (RFC 8621 section 4.1.1, RFC 9051's flag atoms), so each space of a tag
/// is a `+` in its keyword, a character no tag holds. Keywords a tag cannot spell (`$seen`, `$flagged`, anything with
/// another character) are no tags.
public enum MailTag {
    /// The longest tag Mailpit keeps; longer text is cut there.
    public static let maximumLength = 100

    /// `text` as Mailpit's `CleanTag` leaves it: each character outside the tag set a space, runs of white space one
    /// space, trimmed, cut at ``maximumLength``. Empty when nothing is left.
    public static func clean(_ text: String) -> String {
        var words: [String] = []
        var word = ""
        for character in text {
            if isTagCharacter(character) && character != " " {
                word.append(character)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return String(words.joined(separator: " ").prefix(maximumLength))
    }

    /// The keyword that stores tag `text` once cleaned (``clean(_:)``); nil when nothing of it is left.
    public static func keyword(_ text: String) -> String? {
        let tag = clean(text)
        guard !tag.isEmpty else { return nil }
        return String(tag.map { $0 == " " ? "+" : $0 })
    }

    /// The tag keyword `keyword` spells; nil for a keyword no tag spells (a system keyword such as `$seen`, a
    /// keyword with a character outside the tag set, a `+` at either end or two together).
    public static func tag(_ keyword: String) -> String? {
        let text = String(keyword.map { $0 == "+" ? " " : $0 })
        guard !text.isEmpty, text.count <= maximumLength, text.allSatisfy(isTagCharacter), clean(text) == text else {
            return nil
        }
        return text
    }

    /// The keywords of an `X-Tags` header's value: its comma-separated tags, each cleaned; empty ones dropped.
    public static func keywords(fromHeader value: String) -> Set<String> {
        Set(value.split(separator: ",").compactMap { keyword(String($0)) })
    }

    private static func isTagCharacter(_ character: Character) -> Bool {
        guard character.isASCII, let scalar = character.unicodeScalars.first else { return false }
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "@", " ": return true
        default: return false
        }
    }
}
