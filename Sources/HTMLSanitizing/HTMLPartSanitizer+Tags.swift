/// The tags the sanitizer writes: which are kept, which attributes, and how their values are written.
extension HTMLPartSanitizer {
    /// Writes the tag just read, if it is kept, and enters raw text when it starts one.
    mutating func emitTag() {
        state = .data
        let name = tag.name
        guard Self.isName(name, first: Self.isASCIILetter) else { return }
        if Self.droppedWithContent.contains(name) || Self.rawTextKept.contains(name) {
            if !tag.isEnd { state = .rawText(element: name) }
            if Self.droppedWithContent.contains(name) { return }
        }
        if name == "plaintext" && !tag.isEnd { state = .plaintext }
        if Self.droppedTags.contains(name) { return }
        if tag.isEnd {
            output += "</\(name)>"
            return
        }
        output += "<" + name
        var seen: Set<String> = []
        for (attribute, value) in tag.attributes where seen.insert(attribute).inserted {
            guard let kept = Self.keptValue(attribute, value) else { continue }
            output += " \(attribute)=\"\(Self.escapeAttribute(kept))\""
        }
        output += ">"
    }

    /// The value to write for `attribute` (as written, entities kept), or nil to drop the attribute.
    static func keptValue(_ attribute: String, _ value: String) -> String? {
        guard isName(attribute, first: { isASCIILetter($0) || $0 == "_" || $0 == ":" }) else { return nil }
        if attribute.hasPrefix("on") || attribute == "srcdoc" { return nil }
        if attribute == "style" { return CSSFilter.filter(value, entities: true) }
        if attribute == "srcset" || attribute == "ping" || attribute == "archive" {
            let decoded = HTMLEntities.decode(value)
            return decoded.contains(":") || decoded.contains("//") || decoded.contains("\\") ? nil : value
        }
        if urlAttributes.contains(attribute) { return HTMLPartURL.isLocal(HTMLEntities.decode(value)) ? value : nil }
        return value
    }

    /// Attributes that hold one URL a browser may fetch or follow.
    static let urlAttributes: Set<String> = [
        "src", "href", "background", "poster", "data", "action", "formaction", "xlink:href", "lowsrc", "dynsrc",
        "longdesc", "cite", "codebase", "manifest", "icon", "profile", "classid", "xml:base", "itemtype",
    ]

    /// `value` for a double-quoted attribute: `"`, `<` and `>` as character references; `&` as written.
    static func escapeAttribute(_ value: String) -> String {
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\"": out += "&quot;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
