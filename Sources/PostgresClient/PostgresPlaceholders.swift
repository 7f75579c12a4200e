/// `?` placeholders, as the stores write them for SQLite, numbered `$1`, `$2`, ... for PostgreSQL.
///
/// A `?` inside a quoted string ('...'), a quoted identifier ("..."), a dollar-quoted body
/// ($$...$$, $tag$...$tag$) or a comment (`--` to the end of the line, `/* */`) is text, not a
/// placeholder, and stays as it is. Pure: tested on its own.
public enum PostgresPlaceholders {
    /// `sql` with each placeholder numbered, and how many there were.
    public static func numbered(_ sql: String) -> (sql: String, count: Int) {
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var count = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let end = closing(byte, in: bytes, from: index + 1)
                out.append(contentsOf: bytes[index..<end])
                index = end
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
                out.append(contentsOf: bytes[index..<end])
                index = end
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let end = find([UInt8(ascii: "*"), UInt8(ascii: "/")], in: bytes, from: index + 2).map { $0 + 2 }
                    ?? bytes.count
                out.append(contentsOf: bytes[index..<end])
                index = end
            case UInt8(ascii: "$"):
                if let tagEnd = dollarTagEnd(bytes, from: index) {
                    let tag = Array(bytes[index...tagEnd])
                    let end = find(tag, in: bytes, from: tagEnd + 1).map { $0 + tag.count } ?? bytes.count
                    out.append(contentsOf: bytes[index..<end])
                    index = end
                } else {
                    out.append(byte)
                    index += 1
                }
            case UInt8(ascii: "?"):
                count += 1
                out.append(UInt8(ascii: "$"))
                out.append(contentsOf: String(count).utf8)
                index += 1
            default:
                out.append(byte)
                index += 1
            }
        }
        return (String(decoding: out, as: UTF8.self), count)
    }

    /// The index just past the quote that closes one opened before `start` (a doubled quote is an
    /// escaped one), or the end.
    private static func closing(_ quote: UInt8, in bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            if bytes[index] == quote {
                if index + 1 < bytes.count && bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return bytes.count
    }

    /// The index of the `$` that ends a dollar-quote tag starting at `start` (`$$` or `$name$`), or
    /// nil when the `$` starts no tag (a `$1` parameter, say).
    private static func dollarTagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "$") { return index }
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isLetter || byte == UInt8(ascii: "_") || (isDigit && index > start + 1) else { return nil }
            index += 1
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0] && Array(bytes[index..<index + needle.count]) == needle { return index }
            index += 1
        }
        return nil
    }
}
