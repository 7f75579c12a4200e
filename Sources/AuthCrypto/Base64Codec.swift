/// Unpadded base64 with a chosen alphabet; strict on decode.
///
/// Decoding refuses padding, whitespace, characters outside the alphabet, a length of 1 modulo 4
/// and non-zero bits after the last byte, so every byte string has exactly one accepted encoding.
struct Base64Codec: Sendable {
    private let alphabet: [UInt8]
    private let reverse: [UInt8]

    static let url = Base64Codec(alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    static let standard = Base64Codec(alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    private init(alphabet text: String) {
        alphabet = Array(text.utf8)
        var reverse = [UInt8](repeating: 0xff, count: 256)
        for (index, character) in alphabet.enumerated() { reverse[Int(character)] = UInt8(index) }
        self.reverse = reverse
    }

    /// The number of characters `encode` produces for `count` bytes.
    static func encodedLength(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Appends the encoding of `bytes` to `output` (as UTF-8 bytes).
    func encode(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        output.reserveCapacity(output.count + Self.encodedLength(bytes.count))
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while index + 3 <= count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output.append(table[Int(value >> 18 & 0x3f)])
                output.append(table[Int(value >> 12 & 0x3f)])
                output.append(table[Int(value >> 6 & 0x3f)])
                output.append(table[Int(value & 0x3f)])
                index += 3
            }
            switch count - index {
            case 1:
                let value = UInt32(bytes[index]) << 16
                output.append(table[Int(value >> 18 & 0x3f)])
                output.append(table[Int(value >> 12 & 0x3f)])
            case 2:
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                output.append(table[Int(value >> 18 & 0x3f)])
                output.append(table[Int(value >> 12 & 0x3f)])
                output.append(table[Int(value >> 6 & 0x3f)])
            default:
                break
            }
        }
    }

    func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        bytes.withUnsafeBufferPointer { encode($0, into: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `text`; nil when it is not a canonical unpadded encoding.
    func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = text.count
        if count % 4 == 1 { return nil }
        var output = [UInt8]()
        output.reserveCapacity(count * 3 / 4)
        return reverse.withUnsafeBufferPointer { table -> [UInt8]? in
            var index = 0
            while index + 4 <= count {
                let a = table[Int(text[index])], b = table[Int(text[index + 1])]
                let c = table[Int(text[index + 2])], d = table[Int(text[index + 3])]
                if (a | b | c | d) & 0xc0 != 0 { return nil }
                let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                output.append(UInt8(truncatingIfNeeded: value >> 16))
                output.append(UInt8(truncatingIfNeeded: value >> 8))
                output.append(UInt8(truncatingIfNeeded: value))
                index += 4
            }
            switch count - index {
            case 2:
                let a = table[Int(text[index])], b = table[Int(text[index + 1])]
                if (a | b) & 0xc0 != 0 || b & 0x0f != 0 { return nil }
                output.append(a << 2 | b >> 4)
            case 3:
                let a = table[Int(text[index])], b = table[Int(text[index + 1])], c = table[Int(text[index + 2])]
                if (a | b | c) & 0xc0 != 0 || c & 0x03 != 0 { return nil }
                output.append(a << 2 | b >> 4)
                output.append((b & 0x0f) << 4 | c >> 2)
            default:
                break
            }
            return output
        }
    }

    func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }
}
