import Foundation

/// The web links a message's decoded bodies hold, for a test suite that follows a confirmation or sign-in link: the
/// `http` and `https` URLs written in the text part, then the `href` of each element of the HTML part that is one.
/// Pure: text in, URLs out, each once, in the order they first appear; at most ``maximumLinks``.
///
/// Text rules: a URL starts at `http://` or `https://` (any case) and runs to white space, a control character or
/// one of `<>"`; the punctuation a sentence puts after it (`.,;:!?'`, and a closing bracket without its opening one
/// in the URL) is not part of it. HTML rules: the tags are read with their quoted attribute values (a `>` inside
/// quotes does not end a tag); comments and the contents of `script` and `style` are passed over; a value's
/// character references (`&amp;`, `&#38;`, `&#x26;` and the other common ones) are decoded; surrounding spaces are
/// trimmed.
public enum MessageLinks {
    /// Most links one message gives.
    public static let maximumLinks = 1000

    /// The links of a message whose text part is `text` and HTML part `html` (either may be absent).
    public static func find(text: String?, html: String?) -> [String] {
        var seen = Set<String>()
        var links: [String] = []
        for link in (text.map(inText) ?? []) + (html.map(inHTML) ?? []) where seen.insert(link).inserted {
            guard links.count < maximumLinks else { break }
            links.append(link)
        }
        return links
    }

    /// The `http` and `https` URLs written in plain text, in order (repeats kept).
    package static func inText(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        return urlRanges(in: scalars).map { String(String.UnicodeScalarView(scalars[$0])) }
    }

    /// Where the `http` and `https` URLs of plain text are, by the text rules above, in order: for a reader that
    /// needs the words around each (MailExtraction's link kinds) or must pass over the digits inside one.
    package static func urlRanges(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index < scalars.count {
            guard let length = schemeLength(scalars, at: index) else {
                index += 1
                continue
            }
            var end = index + length
            while end < scalars.count, !endsURL(scalars[end]) { end += 1 }
            var url = scalars[index..<end]
            while let last = url.last, trailing(last, in: url) { url.removeLast() }
            if url.count > length { found.append(url.startIndex..<url.endIndex) }
            index = end
        }
        return found
    }

    /// The `href` values of the HTML's tags that are `http` or `https` URLs, in order (repeats kept).
    static func inHTML(_ html: String) -> [String] {
        var found: [String] = []
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            let tag = rest[open...]
            if tag.hasPrefix("<!--") {
                guard let end = tag.range(of: "-->") else { break }
                rest = tag[end.upperBound...]
                continue
            }
            let (attributes, after) = HTMLTag.read(tag)
            for (name, value) in attributes where name == "href" {
                let url = HTMLTag.decodeReferences(value).trimmingSpaces()
                let scalars = Array(url.unicodeScalars)
                if let length = schemeLength(scalars, at: 0), scalars.count > length { found.append(url) }
            }
            let name = HTMLTag.name(tag)
            if name == "script" || name == "style", let end = after.range(of: "</" + name, options: .caseInsensitive) {
                rest = after[end.upperBound...]
            } else {
                rest = after
            }
        }
        return found
    }

    /// The length of `http://` or `https://` (any case) when one starts at `index`, else nil.
    package static func schemeLength(_ scalars: [Unicode.Scalar], at index: Int) -> Int? {
        guard index < scalars.count, lower(scalars[index]) == "h" else { return nil }
        for scheme in schemes where index + scheme.count <= scalars.count {
            if zip(scalars[index...], scheme).allSatisfy({ lower($0) == $1 }) { return scheme.count }
        }
        return nil
    }

    private static let schemes = [Array("https://".unicodeScalars), Array("http://".unicodeScalars)]

    private static func endsURL(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F
            || "<>\"".unicodeScalars.contains(scalar)
    }

    /// Whether `last` is punctuation that follows a URL rather than belongs to it.
    private static func trailing(_ last: Unicode.Scalar, in url: ArraySlice<Unicode.Scalar>) -> Bool {
        if ".,;:!?'".unicodeScalars.contains(last) { return true }
        for (close, open) in [(")", "("), ("]", "["), ("}", "{")] where last == Unicode.Scalar(close)! {
            let opening = Unicode.Scalar(open)!
            return url.filter { $0 == opening }.count < url.filter { $0 == last }.count
        }
        return false
    }

    private static func lower(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }
}
