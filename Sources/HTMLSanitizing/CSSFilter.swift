/// CSS of the HTML part (a `style` attribute or element) with what would fetch from elsewhere taken out: each
/// `url(...)` whose target is not ``HTMLPartURL/isLocal(_:)`` becomes `none`, `@import` becomes the unknown (so
/// ignored) `@x-import`, and `image-set(`, `image(`, `src(` and `expression(` become unknown functions (`x-image(`:
/// their declarations ignored; one already so prefixed is left, so filtering twice changes nothing). CSS that hides
/// such a thing behind an escape (`\75 rl(`) or, in an attribute, a character reference is dropped whole rather than
/// rewritten. Pure.
enum CSSFilter {
    /// Functions disarmed by an `x-` prefix.
    static let functions = ["image-set(", "image(", "src(", "expression("]

    /// `css` made safe, or nil to drop it.
    /// - Parameter entities: `css` is an attribute value, whose character references a browser decodes first.
    static func filter(_ css: String, entities: Bool) -> String? {
        let decoded = entities ? HTMLEntities.decode(css) : css
        if decoded != css || decoded.contains("\\") {
            let plain = unescaped(decoded)
            return rewrite(plain) == plain ? css : nil
        }
        return rewrite(css)
    }

    /// `css` with its escapes (`\` and up to six hex digits and a space, or `\` and a character) replaced by what
    /// they stand for.
    static func unescaped(_ css: String) -> String {
        let s = Array(css.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            guard s[i] == "\\", i + 1 < s.count else {
                out.append(s[i])
                i += 1
                continue
            }
            var j = i + 1
            var value: UInt32 = 0
            while j < s.count, j - i <= 6, let digit = Int(String(s[j]), radix: 16), s[j].isASCII {
                value = value * 16 + UInt32(digit)
                j += 1
            }
            if j > i + 1 {
                out.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                if j < s.count, HTMLPartSanitizer.isSpace(s[j]) { j += 1 }
                i = j
            } else {
                out.append(s[i + 1])
                i += 2
            }
        }
        return String(out)
    }

    /// `css` (no escapes) with remote `url(...)`, `@import` and the image functions disarmed.
    static func rewrite(_ css: String) -> String {
        let s = Array(css.unicodeScalars)
        let lower = s.map(HTMLPartSanitizer.lower)
        func at(_ i: Int, _ word: String) -> Bool {
            var j = i
            for scalar in word.unicodeScalars {
                guard j < lower.count, lower[j] == scalar else { return false }
                j += 1
            }
            return true
        }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            if at(i, "url(") {
                var j = i + 4
                while j < s.count, HTMLPartSanitizer.isSpace(s[j]) { j += 1 }
                var target = String.UnicodeScalarView()
                if j < s.count, s[j] == "\"" || s[j] == "'" {
                    let quote = s[j]
                    j += 1
                    while j < s.count, s[j] != quote {
                        target.append(s[j])
                        j += 1
                    }
                    j += 1
                    while j < s.count, s[j] != ")" { j += 1 }
                } else {
                    while j < s.count, s[j] != ")" {
                        target.append(s[j])
                        j += 1
                    }
                }
                let end = min(j + 1, s.count)
                if HTMLPartURL.isLocal(String(target)) {
                    out.append(contentsOf: s[i..<end])
                } else {
                    out.append(contentsOf: "none".unicodeScalars)
                }
                i = end
            } else if at(i, "@import") {
                out.append(contentsOf: "@x-".unicodeScalars)
                i += 1
            } else if let function = functions.first(where: { at(i, $0) }), !(i >= 2 && at(i - 2, "x-")) {
                out.append(contentsOf: "x-".unicodeScalars)
                out.append(contentsOf: s[i..<(i + function.unicodeScalars.count)])
                i += function.unicodeScalars.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(out)
    }
}
