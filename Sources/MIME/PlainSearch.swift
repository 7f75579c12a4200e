#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Literal substring search over UTF-8 bytes, for HTML's end tags and MailExtraction's keyword lists: exact bytes,
/// no locale, no Unicode normalisation, ASCII case folded only when asked. Foundation's `contains` and `range(of:)`
/// (which a module that imports Foundation makes the overload picked) go through `NSString` and cost several times as
/// much, on every message delivered.
extension StringProtocol {
    /// Whether `needle` occurs in the text, byte for byte; an empty needle always does.
    package func includes(_ needle: String) -> Bool { byteRange(of: needle) != nil }

    /// The first occurrence of `needle`, byte for byte; its bounds are character boundaries when `needle` begins and
    /// ends with an ASCII character (as every keyword of the rules does). With `ignoringASCIICase`, ASCII letters
    /// match either case (`</STYLE` finds `</style`).
    package func byteRange(of needle: String, ignoringASCIICase: Bool = false) -> Range<Index>? {
        if !ignoringASCIICase, let found = contiguousOffset(of: needle) {
            guard let offset = found else { return nil }
            let start = utf8.index(utf8.startIndex, offsetBy: offset)
            return start..<utf8.index(start, offsetBy: needle.utf8.count)
        }
        @inline(__always) func folded(_ byte: UInt8) -> UInt8 {
            ignoringASCIICase && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
        }
        let pattern = needle.utf8.map(folded)
        guard let first = pattern.first else { return startIndex..<startIndex }
        let bytes = utf8
        var start = bytes.startIndex
        while let candidate = bytes[start...].firstIndex(where: { folded($0) == first }) {
            var end = candidate
            var matched = 0
            while matched < pattern.count, end != bytes.endIndex, folded(bytes[end]) == pattern[matched] {
                matched += 1
                bytes.formIndex(after: &end)
            }
            if matched == pattern.count { return candidate..<end }
            start = bytes.index(after: candidate)
        }
        return nil
    }

    /// The byte offset of `needle` in the text's contiguous UTF-8, its first byte found by `memchr` and the rest
    /// compared by `memcmp` (`.some(nil)`: not there); nil when the text has no contiguous storage to search.
    private func contiguousOffset(of needle: String) -> Int?? {
        var needle = needle
        return utf8.withContiguousStorageIfAvailable { haystack -> Int? in
            needle.withUTF8 { pattern -> Int? in
                guard let first = pattern.first else { return 0 }
                guard let base = haystack.baseAddress, haystack.count >= pattern.count else { return nil }
                var offset = 0
                let last = haystack.count - pattern.count
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return nil }
                    let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + at, pattern.baseAddress!, pattern.count) == 0 { return at }
                    offset = at + 1
                }
                return nil
            }
        }
    }
}
