/// The HTML part of a message made harmless to serve in the web inbox's frame and Mailpit's `/view/{ID}.html`,
/// whatever headers reach the browser: a pure tokenizer fed one character at a time that follows HTML's tokenizer
/// rules (WHATWG HTML section 13.2.5) and writes out only what it understood.
///
/// Dropped: `script`, `iframe`, `noembed`, `noframes`, `xmp` and `plaintext` with what they hold; the `base`, `meta`,
/// `link`, `object`, `embed`, `applet`, `frame`, `frameset`, `param`, `noscript`, `svg`, `math` and `template` tags
/// (what they hold is kept and sanitized as any other markup: with no `svg` or `math` tag the browser never parses
/// foreign content); comments, doctypes, processing instructions and CDATA; every `on*` event handler and `srcdoc`; a
/// URL attribute (`src`, `href`, `srcset`, `background`, `poster`, `action`, ...) whose value, entities decoded, names a
/// scheme (`http:`, `https:`, `javascript:`, `data:`, ...) other than `cid:` and `mailto:`, or starts `//` (or a
/// backslash form of it); in a `style` attribute or element, each `url(...)` that is remote is replaced by `none`,
/// `@import` and `image-set(`/`image(`/`src(` are disarmed, and CSS that hides such a thing behind an escape or an
/// entity is dropped whole.
///
/// What is written has no `<` but its own tags: text and attribute values have `<` and `>` escaped, every kept
/// attribute is double-quoted, raw text (`style`, `textarea`, `title`) has `<` escaped too. So no later parse (a
/// parser in another state, a proxy's rewriting) finds markup the sanitizer did not write. The cost: remote links
/// are dropped too, so the frame's links to the web are not links (the raw source keeps them).
///
/// A tag cut off by the end of the text is dropped, as a browser drops it. Memory: the current tag, comment or raw
/// text, bounded by the message the store accepted.
public struct HTMLPartSanitizer {
    /// Elements whose content is raw text to their end tag and dropped with them.
    static let droppedWithContent: Set<String> = ["script", "iframe", "noembed", "noframes", "xmp"]
    /// Elements whose tags are dropped; their content is sanitized as any other markup.
    static let droppedTags: Set<String> = [
        "base", "meta", "link", "object", "embed", "applet", "frame", "frameset", "param", "noscript", "svg", "math",
        "template", "plaintext",
    ]
    /// Elements whose content is raw text (`style`) or escapable raw text (`textarea`, `title`), kept.
    static let rawTextKept: Set<String> = ["style", "textarea", "title"]

    enum State {
        case data
        case tagOpen
        case endTagOpen
        case tagName
        case beforeAttributeName
        case attributeName
        case afterAttributeName
        case beforeAttributeValue
        case attributeValue(quote: Unicode.Scalar?)
        case afterAttributeValueQuoted
        case selfClosing
        /// `<!` read; `buffer` holds what follows, until it says comment, doctype or neither.
        case markupDeclaration
        /// In a comment, at `step` of finding its end (`-->`, `--!>`, or `<!-->` and `<!--->` at once).
        case comment(CommentStep)
        /// `<?`, `</` and a non-letter, `<!` and not a comment: to the next `>`, dropped.
        case bogusComment
        /// A doctype: to the next `>`, dropped (webmail shows a part without its own; the frame renders it as such).
        case doctype
        /// Raw text of `element` (see the sets); `buffer` holds a possible end tag being read.
        case rawText(element: String)
        /// `plaintext`: everything to the end is dropped.
        case plaintext
    }

    /// The comment states of HTML's tokenizer that decide where a comment ends.
    enum CommentStep {
        case start, startDash, body, endDash, end, endBang
    }

    struct Tag {
        var name = ""
        var isEnd = false
        var attributes: [(name: String, value: String)] = []
    }

    // The state, the tag being read and what was written: not private only so that the tag writer
    // (HTMLPartSanitizer+Tags.swift) reaches them; nothing outside the sanitizer sets them.
    var state = State.data
    var tag = Tag()
    private var attributeName = ""
    private var attributeValue = ""
    private var buffer = ""
    private var rawText = ""
    /// Everything written so far.
    var output = ""

    /// A sanitizer at the start of a document.
    public init() {}

    /// `html` sanitized at once.
    public static func sanitize(_ html: String) -> String {
        var sanitizer = HTMLPartSanitizer()
        for scalar in html.unicodeScalars { sanitizer.feed(scalar) }
        return sanitizer.finish()
    }

    /// The end of a tag's name or of a quoted attribute value (WHATWG HTML 13.2.5.8 and 13.2.5.39): whitespace goes on
    /// to the next attribute, `/` to a self-closing tag, `>` ends the tag. False, with nothing done, for any other
    /// character.
    private mutating func endsTagPart(_ c: Unicode.Scalar) -> Bool {
        if Self.isSpace(c) {
            state = .beforeAttributeName
        } else if c == "/" {
            state = .selfClosing
        } else if c == ">" {
            emitTag()
        } else {
            return false
        }
        return true
    }

    /// Takes the next character of the document.
    mutating func feed(_ character: Unicode.Scalar) {
        let c = character == "\u{0}" ? "\u{FFFD}" : character
        switch state {
        case .data:
            if c == "<" { state = .tagOpen } else { writeText(c) }
        case .tagOpen:
            if c == "!" {
                state = .markupDeclaration
                buffer = ""
            } else if c == "/" {
                state = .endTagOpen
            } else if Self.isASCIILetter(c) {
                tag = Tag()
                tag.name.unicodeScalars.append(Self.lower(c))
                state = .tagName
            } else if c == "?" {
                state = .bogusComment
            } else {
                writeText("<")
                state = .data
                feed(c)
            }
        case .endTagOpen:
            if Self.isASCIILetter(c) {
                tag = Tag()
                tag.isEnd = true
                tag.name.unicodeScalars.append(Self.lower(c))
                state = .tagName
            } else if c == ">" {
                state = .data
            } else {
                state = .bogusComment
            }
        case .tagName:
            if !endsTagPart(c) { tag.name.unicodeScalars.append(Self.lower(c)) }
        case .beforeAttributeName:
            if Self.isSpace(c) || c == "/" {
                if c == "/" { state = .selfClosing }
            } else if c == ">" {
                emitTag()
            } else {
                attributeName = ""
                attributeValue = ""
                attributeName.unicodeScalars.append(Self.lower(c))
                state = .attributeName
            }
        case .attributeName:
            if Self.isSpace(c) {
                state = .afterAttributeName
            } else if c == "/" {
                endAttribute()
                state = .selfClosing
            } else if c == ">" {
                endAttribute()
                emitTag()
            } else if c == "=" {
                state = .beforeAttributeValue
            } else {
                attributeName.unicodeScalars.append(Self.lower(c))
            }
        case .afterAttributeName:
            if Self.isSpace(c) {
            } else if c == "/" {
                endAttribute()
                state = .selfClosing
            } else if c == "=" {
                state = .beforeAttributeValue
            } else if c == ">" {
                endAttribute()
                emitTag()
            } else {
                endAttribute()
                attributeName.unicodeScalars.append(Self.lower(c))
                state = .attributeName
            }
        case .beforeAttributeValue:
            if Self.isSpace(c) {
            } else if c == "\"" || c == "'" {
                state = .attributeValue(quote: c)
            } else if c == ">" {
                endAttribute()
                emitTag()
            } else {
                attributeValue.unicodeScalars.append(c)
                state = .attributeValue(quote: nil)
            }
        case .attributeValue(let quote?):
            if c == quote {
                endAttribute()
                state = .afterAttributeValueQuoted
            } else {
                attributeValue.unicodeScalars.append(c)
            }
        case .attributeValue(nil):
            if Self.isSpace(c) {
                endAttribute()
                state = .beforeAttributeName
            } else if c == ">" {
                endAttribute()
                emitTag()
            } else {
                attributeValue.unicodeScalars.append(c)
            }
        case .afterAttributeValueQuoted:
            if !endsTagPart(c) {
                state = .beforeAttributeName
                feed(c)
            }
        case .selfClosing:
            if c == ">" {
                emitTag()
            } else {
                state = .beforeAttributeName
                feed(c)
            }
        case .markupDeclaration:
            markupDeclaration(c)
        case .comment(let step):
            comment(c, step)
        case .bogusComment:
            if c == ">" { state = .data }
        case .doctype:
            if c == ">" { state = .data }
        case .rawText(let element):
            rawTextCharacter(c, element: element)
        case .plaintext:
            break
        }
    }

    /// Ends the document: what is pending is written (raw text, its element closed) or dropped (a cut-off tag or
    /// comment); returns everything written.
    mutating func finish() -> String {
        switch state {
        case .tagOpen:
            writeText("<")
        case .endTagOpen:
            writeText("<")
            writeText("/")
        case .rawText(let element):
            rawText += buffer
            writeRawText(element: element)
            if !Self.droppedWithContent.contains(element) { output += "</\(element)>" }
        default:
            break
        }
        state = .data
        buffer = ""
        return output
    }

    // MARK: - Parts

    private mutating func markupDeclaration(_ c: Unicode.Scalar) {
        buffer.unicodeScalars.append(c)
        let lower = buffer.lowercased()
        if lower == "--" {
            buffer = ""
            state = .comment(.start)
        } else if lower == "doctype" {
            state = .doctype
        } else if !"--".hasPrefix(lower) && !"doctype".hasPrefix(lower) {
            state = .bogusComment
            if c == ">" { state = .data }
        }
    }

    /// The comment's next state after `c` (WHATWG HTML 13.2.5.43 to 13.2.5.52, less what does not move its end).
    private mutating func comment(_ c: Unicode.Scalar, _ step: CommentStep) {
        let next: CommentStep?
        switch (step, c) {
        case (.start, "-"), (.startDash, "-"), (.endDash, "-"), (.end, "-"): next = step == .start ? .startDash : .end
        case (.start, ">"), (.startDash, ">"), (.end, ">"), (.endBang, ">"): next = nil
        case (.body, "-"), (.endBang, "-"): next = .endDash
        case (.end, "!"): next = .endBang
        default: next = .body
        }
        state = next.map(State.comment) ?? .data
    }

    /// Raw text goes on until `</element` and a space, `/` or `>`; that end tag is then read as any tag.
    private mutating func rawTextCharacter(_ c: Unicode.Scalar, element: String) {
        if buffer.isEmpty {
            if c == "<" { buffer = "<" } else { rawText.unicodeScalars.append(c) }
            return
        }
        let candidate = "</" + element
        if buffer.unicodeScalars.count < candidate.unicodeScalars.count {
            let next = buffer.unicodeScalars.count
            let expected = Array(candidate.unicodeScalars)[next]
            if Self.lower(c) == expected {
                buffer.unicodeScalars.append(c)
            } else {
                rawText += buffer
                buffer = ""
                rawTextCharacter(c, element: element)
            }
            return
        }
        guard Self.isSpace(c) || c == "/" || c == ">" else {
            rawText += buffer
            buffer = ""
            rawTextCharacter(c, element: element)
            return
        }
        buffer = ""
        writeRawText(element: element)
        rawText = ""
        tag = Tag()
        tag.isEnd = true
        tag.name = element
        state = .tagName
        feed(c)
    }

    private mutating func writeRawText(element: String) {
        defer { rawText = "" }
        switch element {
        case "style":
            output += CSSFilter.filter(rawText, entities: false)?.replacingLessThan("\\3c ") ?? ""
        case "textarea", "title":
            output += rawText.replacingLessThan("&lt;")
        default:
            break  // dropped with its element
        }
    }

    private mutating func endAttribute() {
        if !attributeName.isEmpty { tag.attributes.append((attributeName, attributeValue)) }
        attributeName = ""
        attributeValue = ""
    }

    // MARK: - Characters

    private mutating func writeText(_ c: Unicode.Scalar) {
        switch c {
        case "<": output += "&lt;"
        case ">": output += "&gt;"
        default: output.unicodeScalars.append(c)
        }
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\u{0C}" || c == "\r"
    }
    static func isASCIILetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
    static func lower(_ c: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 0x20)! : c
    }

    /// `text` is an ASCII name: `first` holds for its first character, the rest are letters, digits, `-`, `_`, `:`
    /// or `.`.
    static func isName(_ text: String, first: (Unicode.Scalar) -> Bool) -> Bool {
        guard let head = text.unicodeScalars.first, first(head) else { return false }
        return text.unicodeScalars.dropFirst().allSatisfy {
            isASCIILetter($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == ":" || $0 == "."
        }
    }
}

extension String {
    /// Each `<` replaced by `replacement`.
    func replacingLessThan(_ replacement: String) -> String {
        var out = ""
        for c in unicodeScalars {
            if c == "<" { out += replacement } else { out.unicodeScalars.append(c) }
        }
        return out
    }
}
