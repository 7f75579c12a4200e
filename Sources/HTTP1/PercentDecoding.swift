/// Percent-decoding for query strings, form bodies, path parameters and the form-encoded parts of a Basic credential
/// (RFC 6749 section 2.3.1).
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`).
    ///
    /// A `%` not followed by two hex digits is kept as it is, as browsers do. Invalid UTF-8 after
    /// decoding is repaired with U+FFFD rather than refused: callers validate the text they need.
    public static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool) -> String {
        decode(bytes: text.utf8, plusAsSpace: plusAsSpace)
    }

    /// ``decode(_:plusAsSpace:)`` of UTF-8 bytes.
    public static func decode<Bytes: Collection<UInt8>>(bytes: Bytes, plusAsSpace: Bool) -> String {
        // Fast path: nothing to decode.
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        let utf8 = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%"), i + 2 < utf8.count,
                let high = ASCII.hexValue(utf8[i + 1]), let low = ASCII.hexValue(utf8[i + 2])
            {
                out.append(high << 4 | low)
                i += 3
            } else if byte == UInt8(ascii: "+") && plusAsSpace {
                out.append(0x20)
                i += 1
            } else {
                out.append(byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
