import Base64Coding

/// Content-Transfer-Encoding decoders: lenient, as mail readers are.
package enum TransferEncodings {
    /// Decodes `bytes` by `encoding` (`base64`, `quoted-printable`; anything else is taken as is).
    static func decode(_ bytes: ArraySlice<UInt8>, encoding: String?) -> [UInt8] {
        switch encoding?.trimmingSpaces().lowercased() {
        case "base64"?: return base64(bytes)
        case "quoted-printable"?: return quotedPrintable(bytes, underscoreIsSpace: false)
        default: return Array(bytes)
        }
    }

    /// Base64 as a mail reader takes it: Base64Coding's lenient decoder (every byte outside the alphabet skipped,
    /// the first `=` ends it).
    static func base64(_ bytes: some Collection<UInt8>) -> [UInt8] {
        Base64.decodeLenient(bytes)
    }

    /// Quoted-printable (RFC 2045 6.7): `=XX` escapes, soft line breaks `=` CRLF; a malformed `=` stays literal.
    /// With `underscoreIsSpace`, the Q encoding of encoded words (RFC 2047 4.2).
    static func quotedPrintable(_ bytes: some Collection<UInt8>, underscoreIsSpace: Bool) -> [UInt8] {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "=") {
                if index + 2 < input.count, input[index + 1] == UInt8(ascii: "\r"), input[index + 2] == UInt8(ascii: "\n") {
                    index += 3
                    continue
                }
                if index + 1 < input.count, input[index + 1] == UInt8(ascii: "\n") {
                    index += 2
                    continue
                }
                if index + 2 < input.count, let high = hex(input[index + 1]), let low = hex(input[index + 2]) {
                    output.append(high << 4 | low)
                    index += 3
                    continue
                }
            }
            output.append(underscoreIsSpace && byte == UInt8(ascii: "_") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return output
    }

    /// The value of one hexadecimal digit (either case), nil for anything else; MailExtraction decodes percent escapes
    /// with it.
    package static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
