/// Just enough of an HTML tag for ``MessageLinks`` and MailExtraction's visible text: its name and its attributes,
/// read as the HTML tokenizer reads them (names lower-cased; values double-quoted, single-quoted or bare; a `>` inside
/// quotes does not end the tag), and the character references of a value. Not a sanitizer: nothing read here is ever
/// written back into a page.
package enum HTMLTag {
    /// The attributes of the tag that starts `tag` (at its `<`) and what follows the tag's `>` (nothing when the tag
    /// never closes). Read by its bytes, as the tokenizer reads: the characters that delimit (white space, `=`, `>`,
    /// `/`, quotes) are ASCII, so every position found is one of the string's own.
    package static func read(_ tag: Substring) -> (attributes: [(String, String)], after: Substring) {
        var attributes: [(String, String)] = []
        let bytes = tag.utf8
        var index = bytes.index(after: bytes.startIndex)
        let end = bytes.endIndex
        func skip(while more: (UInt8) -> Bool) {
            while index < end, more(bytes[index]) { bytes.formIndex(after: &index) }
        }
        func skipSpaces() { skip(while: isSpace) }
        skip { !isSpace($0) && $0 != UInt8(ascii: ">") }
        while true {
            skipSpaces()
            guard index < end else { return (attributes, tag[end...]) }
            if bytes[index] == UInt8(ascii: ">") { return (attributes, tag[bytes.index(after: index)...]) }
            if bytes[index] == UInt8(ascii: "/") {
                bytes.formIndex(after: &index)
                continue
            }
            let nameStart = index
            skip { !isSpace($0) && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "/") }
            let name = tag[nameStart..<index].lowercased()
            skipSpaces()
            guard index < end, bytes[index] == UInt8(ascii: "=") else {
                attributes.append((name, ""))
                continue
            }
            bytes.formIndex(after: &index)
            skipSpaces()
            guard index < end else { return (attributes, tag[end...]) }
            let value: Substring
            let quote = bytes[index]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                let start = bytes.index(after: index)
                let close = bytes[start...].firstIndex(of: quote) ?? end
                value = tag[start..<close]
                index = close < end ? bytes.index(after: close) : end
            } else {
                let start = index
                skip { !isSpace($0) && $0 != UInt8(ascii: ">") }
                value = tag[start..<index]
            }
            attributes.append((name, String(value)))
        }
    }

    /// HTML's white space: tab, line feed, form feed, carriage return, space.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    /// The lower-cased name of the tag that starts `tag` (at its `<`); empty for an end tag or a declaration.
    package static func name(_ tag: Substring) -> String {
        let bytes = tag.utf8.dropFirst()
        let ascii = bytes.prefix {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
        }
        // A name of ASCII letters and digits (every element's) is read by its bytes; past it, a letter of another
        // script goes on the name as before.
        guard ascii.endIndex == bytes.endIndex || bytes[ascii.endIndex] < 0x80 else {
            return String(tag.dropFirst().prefix { $0.isLetter || $0.isNumber }).lowercased()
        }
        return String(decoding: ascii.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
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
