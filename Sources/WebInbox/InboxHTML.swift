import HTMLSanitizing

/// An HTML part made ready for its sandboxed frame: sanitized (``HTMLPartSanitizer``: no script, event handler,
/// `base`, `meta` or remote URL is left, so the document is harmless even where a proxy strips the frame's CSP),
/// `cid:` references pointed at the message's signed inline-image route, and whether the original asked for remote
/// content (which the page says was blocked). Pure: text in, text out.
struct InboxHTML: Equatable {
    /// The HTML to serve in the frame.
    var html: String
    /// Whether the original referred to remote content (`http:`/`https:`/protocol-relative in a `src`, `srcset`,
    /// `background`, `url(` or `<link>`): the page tells the reader it was blocked.
    var remoteContent: Bool

    /// - Parameters:
    ///   - html: the message's HTML part.
    ///   - cidPrefix: what replaces `cid:`, ending in `/`: the inline-image route with its signature.
    init(_ html: String, cidPrefix: String) {
        remoteContent = Self.asksForRemoteContent(html)
        self.html = Self.replacing(HTMLPartSanitizer.sanitize(html), "cid:", with: cidPrefix)
    }

    /// `text` with every ASCII-case-insensitive occurrence of `needle` (lowercase ASCII) replaced by `replacement`.
    static func replacing(_ text: String, _ needle: String, with replacement: String) -> String {
        let bytes = Array(text.utf8), pattern = Array(needle.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if index + pattern.count <= bytes.count, Self.matches(bytes, at: index, pattern) {
                out += Array(replacement.utf8)
                index += pattern.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `html` names a remote URL where a browser would fetch it: an attribute `src`, `srcset`, `background`,
    /// `poster` or `data` (spaces allowed around `=`), a CSS `url(` or `@import`, or any `<link>`.
    static func asksForRemoteContent(_ html: String) -> Bool {
        let lower = Array(html.lowercased().utf8)
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0C, 0x0D]
        func skip(_ index: Int, _ set: Set<UInt8>) -> Int {
            var next = index
            while next < lower.count, set.contains(lower[next]) { next += 1 }
            return next
        }
        func remote(at index: Int) -> Bool {
            let rest = lower[index..<min(lower.count, index + 8)]
            return rest.starts(with: Array("http:".utf8)) || rest.starts(with: Array("https:".utf8))
                || rest.starts(with: Array("//".utf8))
        }
        let quotes = space.union([0x22, 0x27])
        for (token, isAttribute) in [
            ("src", true), ("srcset", true), ("background", true), ("poster", true), ("data", true), ("url(", false),
            ("@import", false), ("<link", false),
        ] {
            let pattern = Array(token.utf8)
            var index = 0
            while index + pattern.count <= lower.count {
                defer { index += 1 }
                guard Self.matches(lower, at: index, pattern) else { continue }
                if token == "<link" { return true }
                var next = skip(index + pattern.count, space)
                if isAttribute {
                    guard next < lower.count, lower[next] == UInt8(ascii: "=") else { continue }
                    next += 1
                }
                if remote(at: skip(next, quotes)) { return true }
            }
        }
        return false
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ pattern: [UInt8]) -> Bool {
        for offset in 0..<pattern.count {
            var byte = bytes[index + offset]
            if byte >= 0x41 && byte <= 0x5A { byte += 0x20 }
            if byte != pattern[offset] { return false }
        }
        return true
    }
}
