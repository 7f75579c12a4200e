/// Just enough of an HTML tag for ``MessageLinks`` and MailExtraction's visible text: its name and its attributes,
/// read as the HTML tokenizer reads them (names lower-cased; values double-quoted, single-quoted or bare; a `>` inside
/// quotes does not end the tag), and the character references of a value. Not a sanitizer: nothing read here is ever
/// written back into a page.
package enum HTMLTag {
    /// The attributes of the tag that starts `tag` (at its `<`) and what follows the tag's `>` (nothing when the tag
    /// never closes).
    package static func read(_ tag: Substring) -> (attributes: [(String, String)], after: Substring) {
        var attributes: [(String, String)] = []
        var index = tag.index(after: tag.startIndex)
        let end = tag.endIndex
        func skipSpaces() { while index < end, tag[index].isWhitespace { index = tag.index(after: index) } }
        while index < end, !tag[index].isWhitespace, tag[index] != ">" { index = tag.index(after: index) }
        while true {
            skipSpaces()
            guard index < end else { return (attributes, tag[end...]) }
            if tag[index] == ">" { return (attributes, tag[tag.index(after: index)...]) }
            if tag[index] == "/" {
                index = tag.index(after: index)
                continue
            }
            let nameStart = index
            while index < end, !tag[index].isWhitespace, !"=>/".contains(tag[index]) { index = tag.index(after: index) }
            let name = tag[nameStart..<index].lowercased()
            skipSpaces()
            guard index < end, tag[index] == "=" else {
                attributes.append((name, ""))
                continue
            }
            index = tag.index(after: index)
            skipSpaces()
            guard index < end else { return (attributes, tag[end...]) }
            let value: Substring
            if tag[index] == "\"" || tag[index] == "'" {
                let quote = tag[index]
                let start = tag.index(after: index)
                let close = tag[start...].firstIndex(of: quote) ?? end
                value = tag[start..<close]
                index = close < end ? tag.index(after: close) : end
            } else {
                let start = index
                while index < end, !tag[index].isWhitespace, tag[index] != ">" { index = tag.index(after: index) }
                value = tag[start..<index]
            }
            attributes.append((name, String(value)))
        }
    }

    /// The lower-cased name of the tag that starts `tag` (at its `<`); empty for an end tag or a declaration.
    package static func name(_ tag: Substring) -> String {
        String(tag.dropFirst().prefix { $0.isLetter || $0.isNumber }).lowercased()
    }

    /// `text` with its character references decoded: decimal and hexadecimal ones, and the named ones a link, an
    /// address or a message's visible text holds (`amp`, `lt`, `gt`, `quot`, `apos`, `nbsp`, signs, dashes, quotes,
    /// joiners). An unknown or malformed one stays as written.
    package static func decodeReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            let reference = rest[rest.index(after: ampersand)...].prefix { $0 != ";" && $0 != "&" }
            let afterReference = rest.index(ampersand, offsetBy: reference.count + 1)
            if afterReference < rest.endIndex, rest[afterReference] == ";",
                let decoded = character(of: reference)
            {
                output.unicodeScalars.append(decoded)
                rest = rest[rest.index(after: afterReference)...]
            } else {
                output += "&"
                rest = rest[rest.index(after: ampersand)...]
            }
        }
        return output + rest
    }

    private static let named: [Substring: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        // What a message's visible text holds besides (MailExtraction reads it): signs, dashes, quotes and the
        // invisible joiners that pad a preheader.
        "copy": "\u{A9}", "reg": "\u{AE}", "trade": "\u{2122}", "euro": "\u{20AC}", "pound": "\u{A3}", "yen": "\u{A5}",
        "cent": "\u{A2}", "mdash": "\u{2014}", "ndash": "\u{2013}", "hellip": "\u{2026}", "rsquo": "\u{2019}",
        "lsquo": "\u{2018}", "rdquo": "\u{201D}", "ldquo": "\u{201C}", "laquo": "\u{AB}", "raquo": "\u{BB}",
        "middot": "\u{B7}", "bull": "\u{2022}", "times": "\u{D7}", "zwnj": "\u{200C}", "zwj": "\u{200D}",
        "shy": "\u{AD}", "ensp": "\u{2002}", "emsp": "\u{2003}", "thinsp": "\u{2009}",
    ]

    private static func character(of reference: Substring) -> Unicode.Scalar? {
        guard reference.first == "#" else { return named[reference] }
        let digits = reference.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = digits.count > 1 && digits.count <= 7 ? UInt32(digits.dropFirst(), radix: 16) : nil
        } else {
            value = !digits.isEmpty && digits.count <= 7 ? UInt32(digits, radix: 10) : nil
        }
        return value.flatMap(Unicode.Scalar.init)
    }
}
