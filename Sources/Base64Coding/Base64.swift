/// Standard base64 (RFC 4648 section 4) over the same codec as ``Base64URL``: the one encoder and decoder of every
/// target (`scripts/check-imports` keeps Foundation's out of Sources). Each caller picks the tolerance its protocol
/// asks for:
/// - ``decode(_:)``: padded and strict about length, padding and alphabet, no whitespace (SMTP `AUTH`, DKIM tags once
///   their folding is removed, JMAP's and MCP's `data:asBase64`), as Foundation's `Data(base64Encoded:)` was;
/// - ``decodeUnpadded(_:)``: unpadded and canonical (the PHC strings of Argon2 hashes);
/// - ``decodeLenient(_:)``: a mail reader's, for MIME bodies and encoded words, which never refuses.
public enum Base64 {
    /// Encodes `bytes` with the standard alphabet (`+`, `/`) and `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        let unpadded = Base64Codec.standard.encode(bytes)
        return unpadded + String(repeating: "=", count: (4 - unpadded.utf8.count % 4) % 4)
    }

    /// Encodes `bytes` padded, in lines of `lineLength` characters (the last may be shorter) joined by `lineEnding`,
    /// with none after the last: MIME bodies (76, RFC 2045 section 6.8) and PEM (64).
    /// - Precondition: `lineLength` is positive.
    public static func encode(_ bytes: [UInt8], lineLength: Int, lineEnding: String = "\r\n") -> String {
        precondition(lineLength > 0, "a line holds at least one character")
        let text = Array(encode(bytes).utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.count + text.count / lineLength * lineEnding.utf8.count)
        for start in stride(from: 0, to: text.count, by: lineLength) {
            if start > 0 { output.append(contentsOf: lineEnding.utf8) }
            output.append(contentsOf: text[start..<min(start + lineLength, text.count)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes `bytes` with the standard alphabet and no padding (PHC strings).
    public static func encodeUnpadded(_ bytes: [UInt8]) -> String {
        Base64Codec.standard.encode(bytes)
    }

    /// Decodes padded standard base64: nil unless the length is a multiple of four, `=` appears only as the last one
    /// or two characters, and every other character is of the alphabet (no whitespace, no line breaks). The bits
    /// after the last byte may be anything (RFC 4648 section 3.5 lets a decoder accept them; Foundation did).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count % 4 == 0 else { return nil }
            var end = bytes.count
            while end > bytes.count - 2, end > 0, bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
            return Base64Codec.standard.decode(UnsafeBufferPointer(rebasing: bytes[..<end]), canonical: false)
        }
    }

    /// Decodes unpadded standard base64; nil for padding, whitespace, a character outside the alphabet or a
    /// non-canonical ending (one accepted text per byte string).
    public static func decodeUnpadded(_ text: String) -> [UInt8]? {
        Base64Codec.standard.decode(text)
    }

    /// Decodes as a mail reader does (MIME bodies, RFC 2047 `B` words): every byte outside the alphabet is skipped
    /// (line breaks, spaces, stray characters), `-` and `_` count as `+` and `/`, the first `=` ends the data, and a
    /// last lone character (six bits, no byte) is dropped. Never refuses.
    public static func decodeLenient(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        scan: for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                kept.append(byte)
            case UInt8(ascii: "-"): kept.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): kept.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): break scan
            default: continue
            }
        }
        if kept.count % 4 == 1 { kept.removeLast() }
        // What is left is of the alphabet with a length the codec takes, so it always decodes.
        return kept.withUnsafeBufferPointer { Base64Codec.standard.decode($0, canonical: false) } ?? []
    }
}
