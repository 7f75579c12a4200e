/// HTML character references decoded as a browser decodes them in an attribute value, as far as a decision on a URL
/// or CSS needs: every numeric reference, and the named references whose value is ASCII (a name whose value is not
/// ASCII stays as written: it can make no scheme, slash, colon or parenthesis). Pure.
enum HTMLEntities {
    /// The named references of WHATWG HTML's table whose value is ASCII, with the semicolon.
    static let ascii: [String: String] = [
        "Tab": "\t", "NewLine": "\n", "excl": "!", "quot": "\"", "QUOT": "\"", "num": "#", "dollar": "$",
        "percnt": "%", "amp": "&", "AMP": "&", "apos": "'", "lpar": "(", "rpar": ")", "ast": "*", "midast": "*",
        "plus": "+", "comma": ",", "period": ".", "sol": "/", "colon": ":", "semi": ";", "lt": "<", "LT": "<",
        "equals": "=", "gt": ">", "GT": ">", "quest": "?", "commat": "@", "lsqb": "[", "lbrack": "[", "bsol": "\\",
        "rsqb": "]", "rbrack": "]", "Hat": "^", "lowbar": "_", "UnderBar": "_", "grave": "`", "DiacriticalGrave": "`",
        "lcub": "{", "lbrace": "{", "verbar": "|", "vert": "|", "VerticalLine": "|", "rcub": "}", "rbrace": "}",
        "fjlig": "fj",
    ]
    /// The references a browser also takes without a semicolon (when not followed by `=` or a letter or digit, in
    /// an attribute) whose value is ASCII.
    static let legacy: Set<String> = ["amp", "AMP", "lt", "LT", "gt", "GT", "quot", "QUOT"]

    /// `value` with its character references decoded (see the type).
    static func decode(_ value: String) -> String {
        guard value.contains("&") else { return value }
        let scalars = Array(value.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "&" else {
                out.append(scalars[index])
                index += 1
                continue
            }
            if let (decoded, length) = reference(scalars, at: index) {
                out.append(contentsOf: decoded.unicodeScalars)
                index += length
            } else {
                out.append("&")
                index += 1
            }
        }
        return String(out)
    }

    /// The reference at `index` (an `&`): its value and how many characters it took, or nil.
    private static func reference(_ s: [Unicode.Scalar], at index: Int) -> (String, Int)? {
        var i = index + 1
        if i < s.count, s[i] == "#" {
            i += 1
            let hex = i < s.count && (s[i] == "x" || s[i] == "X")
            if hex { i += 1 }
            let start = i
            var value: UInt32 = 0
            while i < s.count, let digit = Int(String(s[i]), radix: hex ? 16 : 10), digit >= 0 {
                value = min(value &* (hex ? 16 : 10) &+ UInt32(digit), 0x11_0000)
                i += 1
            }
            guard i > start else { return nil }
            if i < s.count, s[i] == ";" { i += 1 }
            let scalar = Unicode.Scalar(value).flatMap { $0.value == 0 ? nil : $0 } ?? "\u{FFFD}"
            return (String(Character(scalar)), i - index)
        }
        let start = i
        while i < s.count, i - start < 32, HTMLPartSanitizer.isASCIILetter(s[i]) || ("0"..."9").contains(s[i]) {
            i += 1
        }
        let name = String(String.UnicodeScalarView(s[start..<i]))
        if i < s.count, s[i] == ";", let value = ascii[name] { return (value, i + 1 - index) }
        if legacy.contains(name), let value = ascii[name] {
            let next = i < s.count ? s[i] : " "
            if next != "=" && !HTMLPartSanitizer.isASCIILetter(next) && !("0"..."9").contains(next) {
                return (value, i - index)
            }
        }
        return nil
    }
}
