import Base64Coding

/// Modified UTF-7 (RFC 3501 §5.1.3), the form IMAP4rev1 gives mailbox names in: printable ASCII but `&` stands for
/// itself, `&` is `&-`, and any other run of characters is `&`, their UTF-16BE in base64 with `,` for `/` and no
/// padding, then `-`. The session decodes the names of a command into UTF-8 and the encoder writes names back in it,
/// unless the client enabled IMAP4rev2 (which names mailboxes in UTF-8). Pure.
public enum IMAPModifiedUTF7 {
    /// `name` in modified UTF-7.
    public static func encode(_ name: String) -> String {
        var out = ""
        var pending: [UInt16] = []
        func flush() {
            guard !pending.isEmpty else { return }
            let bytes = pending.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            out += "&" + swapping(Base64.encodeUnpadded(bytes), "/", ",") + "-"
            pending = []
        }
        for scalar in name.unicodeScalars {
            if (0x20...0x7E).contains(scalar.value) {
                flush()
                out += scalar == "&" ? "&-" : String(scalar)
            } else {
                pending += Array(String(scalar).utf16)
            }
        }
        flush()
        return out
    }

    /// The UTF-8 name `text` spells in modified UTF-7; nil when it is not modified UTF-7 as RFC 3501 writes it (an
    /// 8-bit or control byte, an unterminated or empty shift, a shift that spells printable ASCII, bad base64 or
    /// UTF-16).
    public static func decode(_ text: String) -> String? {
        var out = ""
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard (0x20...0x7E).contains(byte) else { return nil }
            guard byte == UInt8(ascii: "&") else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
                continue
            }
            guard let end = bytes.firstIndex(of: UInt8(ascii: "-")) else { return nil }
            let encoded = bytes[..<end]
            bytes = bytes[(end + 1)...]
            if encoded.isEmpty {
                out += "&"
                continue
            }
            // Unpadded and canonical: the bits after the last byte are zero, so one name has one spelling.
            guard encoded.allSatisfy(isBase64),
                let decoded = Base64.decodeUnpadded(swapping(String(decoding: encoded, as: UTF8.self), ",", "/")),
                decoded.count % 2 == 0
            else { return nil }
            let units = stride(from: 0, to: decoded.count, by: 2).map { UInt16(decoded[$0]) << 8 | UInt16(decoded[$0 + 1]) }
            var scalars = ""
            var iterator = units.makeIterator()
            var codec = UTF16()
            decoding: while true {
                switch codec.decode(&iterator) {
                case .scalarValue(let scalar):
                    // Printable ASCII must stand for itself, never be shifted.
                    guard !(0x20...0x7E).contains(scalar.value) else { return nil }
                    scalars.unicodeScalars.append(scalar)
                case .emptyInput: break decoding
                case .error: return nil
                }
            }
            out += scalars
            // Two shifts in a row are one shift written badly ("&AOQ-&AOQ-").
            if bytes.first == UInt8(ascii: "&"), bytes.dropFirst().first != UInt8(ascii: "-") { return nil }
        }
        return out
    }

    /// `text` with every `from` made `to` (both ASCII).
    private static func swapping(_ text: String, _ from: Unicode.Scalar, _ to: Unicode.Scalar) -> String {
        String(decoding: text.utf8.map { $0 == UInt8(ascii: from) ? UInt8(ascii: to) : $0 }, as: UTF8.self)
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: ","):
            return true
        default: return false
        }
    }
}
