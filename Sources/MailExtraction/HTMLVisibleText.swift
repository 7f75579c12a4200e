import MIME

/// The visible text of an HTML part and its links, as a reader sees them (issue 85): no `<head>`, `<style>`,
/// `<script>`, `<template>` or `<title>`, no comments, no attributes, nothing inside an element hidden by the
/// `hidden` attribute or a style of `display:none`, `visibility:hidden`, `opacity:0`, `font-size:0` or `max-height:0`;
/// character references decoded; white space collapsed; a line break at each block element (`p`, `div`, `br`, `td`,
/// `li`, headings ...), so that a table cell or a paragraph is a line of its own. A scalar is *emphasized* inside `b`,
/// `strong`, `h1`–`h3`, `big`, or an element whose style is bold, at least 18px (14pt, 1.3em) or letter-spaced.
///
/// Bounded: at most `maximumHTMLBytes` of HTML read, `maximumTextScalars` of text written, `maximumElementDepth` open
/// elements followed (deeper ones are read as their parent's text). Each tag, comment and raw-text element is
/// scanned once: a `<script>` or comment that never ends ends the reading, never a search again.
struct HTMLVisibleText {
    /// An `<a href>` (or `<area href>`) that is an `http(s)` URL, with its visible text.
    struct Anchor {
        var href: String
        var text: String
        var emphasized: Bool
        /// Where its text starts and ends in ``text``, for the words around it.
        var position: Int
        var end: Int
    }

    private(set) var text: SourceText
    private(set) var anchors: [Anchor] = []

    private struct Element {
        var name: String
        var hidden: Bool
        var emphasized: Bool
    }

    private var stack: [Element] = []
    private var deeper = 0
    private var hiddenDepth = 0
    private var emphasisDepth = 0
    private var pendingSpace = false
    private var openAnchor: (href: String, text: [Unicode.Scalar], alt: String, emphasized: Bool, position: Int)?
    private let limits: ExtractionLimits

    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]
    private static let blockElements: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "caption", "center", "dd", "div", "dl", "dt", "footer",
        "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    ]
    private static let hiddenElements: Set<String> = ["head", "title", "template", "noscript", "select", "option"]
    private static let emphasisElements: Set<String> = ["b", "strong", "h1", "h2", "h3", "big"]
    /// Elements a new one of the same name closes when left open (`<p>a<p>b`, `<td>1<td>2`).
    private static let selfClosingSiblings: Set<String> = ["p", "li", "td", "th", "tr", "dt", "dd"]

    init(html: String, limits: ExtractionLimits) {
        self.limits = limits
        text = SourceText(capacity: limits.maximumTextScalars)
        var html = html
        if html.utf8.count > limits.maximumHTMLBytes {
            html = String(decoding: html.utf8.prefix(limits.maximumHTMLBytes), as: UTF8.self)
        }
        read(Substring(html))
        closeAnchor()
    }

    private mutating func read(_ html: Substring) {
        var rest = html
        while !text.isFull, let open = rest.utf8.firstIndex(of: UInt8(ascii: "<")) {
            appendText(rest[..<open])
            let tag = rest[open...]
            let next = tag.dropFirst().first
            if tag.hasPrefix("<!--") {
                guard let end = tag.byteRange(of: "-->") else { return }
                rest = tag[end.upperBound...]
                continue
            }
            guard let next, next.isLetter || next == "/" || next == "!" || next == "?" else {
                appendText(tag.prefix(1))
                rest = tag.dropFirst()
                continue
            }
            if next == "/" {
                let name = String(tag.dropFirst(2).prefix { $0.isLetter || $0.isNumber }).lowercased()
                let close = tag.utf8.firstIndex(of: UInt8(ascii: ">")).map { tag.utf8.index(after: $0) } ?? tag.endIndex
                end(name)
                rest = tag[close...]
                continue
            }
            let (attributes, after) = HTMLTag.read(tag)
            let name = HTMLTag.name(tag)
            let selfClosing = tag[..<after.startIndex].hasSuffix("/>")
            rest = after
            guard !name.isEmpty else { continue }
            if name == "script" || name == "style" || name == "textarea" {
                guard let end = after.byteRange(of: "</" + name, ignoringASCIICase: true) else { return }
                rest = after[end.upperBound...]
                if let close = rest.utf8.firstIndex(of: UInt8(ascii: ">")) {
                    rest = rest[rest.utf8.index(after: close)...]
                }
                continue
            }
            start(name, attributes: attributes, selfClosing: selfClosing)
        }
        if !text.isFull { appendText(rest) }
    }

    private mutating func start(_ name: String, attributes: [(String, String)], selfClosing: Bool) {
        if name == "body" {
            // A `<body>` ends a `<head>` left open.
            while let index = stack.lastIndex(where: { $0.name == "head" }) { pop(to: index) }
        }
        if Self.selfClosingSiblings.contains(name), stack.last?.name == name { pop(to: stack.count - 1) }
        if Self.blockElements.contains(name) { lineBreak() }
        if name == "img", hiddenDepth == 0, openAnchor != nil, openAnchor?.alt.isEmpty == true,
            let alt = attributes.first(where: { $0.0 == "alt" })?.1
        {
            openAnchor?.alt = HTMLTag.decodeReferences(alt)
        }
        if name == "a" || name == "area" { closeAnchor() }
        // The style attribute read once, for both questions.
        let style = attributes.first { $0.0 == "style" }.map { Self.declarations(Self.compact($0.1)) } ?? []
        let hidden =
            Self.hiddenElements.contains(name) || attributes.contains { $0.0 == "hidden" }
            || Self.hides(style)
        let emphasized = Self.emphasisElements.contains(name) || Self.emphasizes(style)
        if name == "a" || name == "area", hiddenDepth == 0, !hidden,
            let href = attributes.first(where: { $0.0 == "href" })?.1
        {
            let url = HTMLTag.decodeReferences(href).trimmedOfWhitespace()
            if url.unicodeScalars.count <= limits.maximumURLScalars, LinkText.isWebURL(url) {
                openAnchor = (url, [], "", emphasized || emphasisDepth > 0, text.scalars.count)
            }
        }
        guard !Self.voidElements.contains(name), !selfClosing else {
            if name == "area" { closeAnchor() }
            return
        }
        guard stack.count < limits.maximumElementDepth else {
            deeper += 1
            return
        }
        stack.append(Element(name: name, hidden: hidden, emphasized: emphasized))
        if hidden { hiddenDepth += 1 }
        if emphasized { emphasisDepth += 1 }
    }

    private mutating func end(_ name: String) {
        if name == "a" { closeAnchor() }
        if Self.blockElements.contains(name) { lineBreak() }
        if deeper > 0 {
            deeper -= 1
            return
        }
        if let index = stack.lastIndex(where: { $0.name == name }) { pop(to: index) }
    }

    /// Closes the elements from `index` to the top of the stack.
    private mutating func pop(to index: Int) {
        while stack.count > index {
            let element = stack.removeLast()
            if element.hidden { hiddenDepth -= 1 }
            if element.emphasized { emphasisDepth -= 1 }
            if element.name == "a" { closeAnchor() }
        }
    }

    private mutating func closeAnchor() {
        guard let anchor = openAnchor else { return }
        openAnchor = nil
        var words = String(scalars: anchor.text).trimmedOfWhitespace()
        if words.isEmpty { words = anchor.alt.trimmedOfWhitespace() }
        anchors.append(
            Anchor(
                href: anchor.href, text: String(words.unicodeScalars.prefix(limits.maximumLinkTextScalars)),
                emphasized: anchor.emphasized, position: anchor.position, end: text.scalars.count))
    }

    private mutating func lineBreak() {
        pendingSpace = false
        if let last = text.scalars.last, last != "\n" { text.append("\n", emphasized: false) }
    }

    /// Appends the visible characters of `raw` (text between tags), references decoded, white space collapsed.
    private mutating func appendText(_ raw: Substring) {
        guard hiddenDepth == 0, !raw.isEmpty else { return }
        let decoded = raw.contains("&") ? HTMLTag.decodeReferences(String(raw)) : String(raw)
        let emphasized = emphasisDepth > 0
        for scalar in decoded.unicodeScalars {
            if Self.invisible(scalar) { continue }
            if scalar.isWhitespaceScalar && scalar != "\u{A0}" && scalar != "\u{2009}" && scalar != "\u{202F}" {
                pendingSpace = true
                continue
            }
            if pendingSpace, let last = text.scalars.last, last != "\n" {
                text.append(" ", emphasized: false)
                if openAnchor != nil { openAnchor?.text.append(" ") }
            }
            pendingSpace = false
            guard text.append(scalar, emphasized: emphasized) else { return }
            if openAnchor != nil, (openAnchor?.text.count ?? 0) < limits.maximumLinkTextScalars {
                openAnchor?.text.append(scalar)
            }
        }
    }

    /// Zero-width and soft characters that pad preheaders and split words invisibly.
    private static func invisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xAD, 0x034F, 0x200B...0x200F, 0x2060, 0xFEFF: return true
        default: return false
        }
    }

    /// A style attribute lower-cased, its white space removed.
    private static func compact(_ style: String) -> String {
        String(scalars: style.lowercased().unicodeScalars.filter { !$0.isWhitespaceScalar })
    }

    private static func hides(_ style: [(property: String, value: String)]) -> Bool {
        for declaration in style {
            switch declaration.property {
            case "display": if declaration.value.hasPrefix("none") { return true }
            case "visibility": if declaration.value.hasPrefix("hidden") { return true }
            case "opacity", "font-size", "max-height":
                if zeroLength(declaration.value) { return true }
            default: continue
            }
        }
        return false
    }

    private static func emphasizes(_ style: [(property: String, value: String)]) -> Bool {
        for declaration in style {
            let value = declaration.value.replacingImportant()
            switch declaration.property {
            case "font-weight":
                if value.hasPrefix("bold") || ["600", "700", "800", "900"].contains(value) { return true }
            case "font-size":
                if ["large", "x-large", "xx-large", "xxx-large", "larger"].contains(value) { return true }
                if let size = leadingNumber(value) {
                    if value.hasSuffix("px"), size >= 18 { return true }
                    if value.hasSuffix("pt"), size >= 14 { return true }
                    if value.hasSuffix("em") || value.hasSuffix("rem"), size >= 1.3 { return true }
                    if value.hasSuffix("%"), size >= 130 { return true }
                }
            case "letter-spacing":
                if let size = leadingNumber(value), size > 0 { return true }
            case "font":
                // The shorthand: `font: bold 24px Arial` (white space removed: `bold24pxarial`).
                if value.includes("bold") || value.hasPrefix("600") || value.hasPrefix("700") || largeSize(in: value) {
                    return true
                }
            default: continue
            }
        }
        return false
    }

    /// Whether a size of at least 18px or 14pt is written somewhere in a shorthand value.
    private static func largeSize(in value: String) -> Bool {
        let scalars = Array(value.unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard CodeTokenizer.isDigit(scalars[index]) else {
                index += 1
                continue
            }
            var end = index
            var number = 0
            while end < scalars.count, CodeTokenizer.isDigit(scalars[end]), number < 10_000 {
                number = number * 10 + Int(scalars[end].value - 0x30)
                end += 1
            }
            let unit = String(scalars: scalars[end..<min(end + 2, scalars.count)])
            if (unit == "px" && number >= 18) || (unit == "pt" && number >= 14) { return true }
            index = end
        }
        return false
    }

    private static func declarations(_ style: String) -> [(property: String, value: String)] {
        style.split(separator: ";").prefix(64).compactMap { declaration in
            guard let colon = declaration.firstIndex(of: ":") else { return nil }
            return (String(declaration[..<colon]), String(declaration[declaration.index(after: colon)...]))
        }
    }

    private static func zeroLength(_ value: String) -> Bool {
        leadingNumber(value.replacingImportant()) == 0
    }

    /// The number a CSS value starts with (`18px` → 18, `.5em` → 0.5), nil when it starts with none.
    private static func leadingNumber(_ value: String) -> Double? {
        let number = value.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        return number.isEmpty ? nil : Double(number.count > 16 ? number.prefix(16) : number)
    }
}

extension String {
    /// Without leading and trailing white space (of every kind: the no-break space too).
    func trimmedOfWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhitespaceScalar }),
            let last = scalars.lastIndex(where: { !$0.isWhitespaceScalar })
        else { return "" }
        return String(scalars[first...last])
    }

    /// A CSS value without its `!important`.
    fileprivate func replacingImportant() -> String {
        hasSuffix("!important") ? String(dropLast(10)) : self
    }
}
