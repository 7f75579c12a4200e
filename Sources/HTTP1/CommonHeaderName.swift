/// Request header names common enough not to build a String for: a name received exactly in one of the
/// spellings below is given as that string literal (no validation, no copy); any other spelling is built as
/// received. Each name in its usual spelling and in lowercase (what HTTP/2-era clients send).
enum CommonHeaderName {
    /// The literal for `name`, nil when it is not one of the spellings.
    static func literal(for name: UnsafeBufferPointer<UInt8>) -> String? {
        switch name.count {
        case 4: return pick(name, "Host", "Host", "host")
        case 6:
            return pick(name, "Accept", "Accept", "accept") ?? pick(name, "Cookie", "Cookie", "cookie")
                ?? pick(name, "Origin", "Origin", "origin")
        case 10:
            return pick(name, "User-Agent", "User-Agent", "user-agent")
                ?? pick(name, "Connection", "Connection", "connection")
        case 12:
            return pick(name, "Content-Type", "Content-Type", "content-type")
                ?? pick(name, "X-Request-Id", "X-Request-Id", "x-request-id")
        case 13: return pick(name, "Authorization", "Authorization", "authorization")
        case 14: return pick(name, "Content-Length", "Content-Length", "content-length")
        case 15:
            return pick(name, "Accept-Encoding", "Accept-Encoding", "accept-encoding")
                ?? pick(name, "Accept-Language", "Accept-Language", "accept-language")
                ?? pick(name, "X-Forwarded-For", "X-Forwarded-For", "x-forwarded-for")
        default: return nil
        }
    }

    /// `usual` when `name` is spelled `spelling`, its lowercase when spelled `lowercase`, else nil. The caller has
    /// matched the lengths.
    @inline(__always)
    private static func pick(
        _ name: UnsafeBufferPointer<UInt8>, _ spelling: StaticString, _ usual: String, _ lowercase: String
    )
        -> String?
    {
        // One pass: each byte equals the usual spelling's, or every byte so far equals its lowercase.
        spelling.withUTF8Buffer { expected in
            var usualSoFar = true
            var lowercaseSoFar = true
            var i = 0
            while i < expected.count {
                let byte = name[i]
                usualSoFar = usualSoFar && byte == expected[i]
                lowercaseSoFar = lowercaseSoFar && byte == expected[i].asciiLowercased
                if !usualSoFar && !lowercaseSoFar { return nil }
                i += 1
            }
            return usualSoFar ? usual : lowercase
        }
    }
}
