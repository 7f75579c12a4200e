/// Whether a URL in the HTML part stays on this server or in the message: pure.
enum HTMLPartURL {
    /// Whether `url` (entities already decoded) is one the frame may keep: empty, a fragment, `cid:` (an inline
    /// image of the message), `mailto:`, or a relative reference that is not protocol-relative. Anything with
    /// another scheme (`http:`, `https:`, `javascript:`, `data:`, ...) or starting `//` (`\` counts as `/`, as
    /// browsers read it) is not. Read as a browser's URL parser reads it: leading and trailing spaces and controls
    /// ignored, tabs and line breaks inside removed.
    static func isLocal(_ url: String) -> Bool {
        var scalars = Array(url.unicodeScalars)
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        scalars.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.first else { return true }
        if first == "#" { return true }
        if scalars.count >= 2, first == "/" || first == "\\", scalars[1] == "/" || scalars[1] == "\\" { return false }
        guard HTMLPartSanitizer.isASCIILetter(first) else { return true }
        var index = 1
        while index < scalars.count {
            let c = scalars[index]
            if c == ":" {
                let scheme = String(String.UnicodeScalarView(scalars[..<index])).lowercased()
                return scheme == "cid" || scheme == "mailto"
            }
            guard HTMLPartSanitizer.isASCIILetter(c) || ("0"..."9").contains(c) || c == "+" || c == "-" || c == "."
            else { return true }
            index += 1
        }
        return true
    }
}
