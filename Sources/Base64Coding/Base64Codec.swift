/// Unpadded base64 with a chosen alphabet; strict on decode: the one codec under ``Base64`` and ``Base64URL``.
///
/// Decoding refuses padding, whitespace, characters outside the alphabet, a length of 1 modulo 4
/// and (when `canonical`, the default) non-zero bits after the last byte, so every byte string has exactly one
/// accepted encoding.
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
        let start = output.count
        let length = Self.encodedLength(bytes.count)
        output.append(contentsOf: repeatElement(0, count: length))
        output.withUnsafeMutableBufferPointer { output in
            encode(bytes, to: UnsafeMutableBufferPointer(rebasing: output[start..<(start + length)]))
        }
    }

    /// Writes the encoding of `bytes` into `output`, which has exactly `encodedLength(bytes.count)` bytes.
    private func encode(_ bytes: UnsafeBufferPointer<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>) {
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            var out = 0
            let count = bytes.count
            while index + 3 <= count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output[out] = table[Int(value >> 18 & 0x3f)]
                output[out + 1] = table[Int(value >> 12 & 0x3f)]
                output[out + 2] = table[Int(value >> 6 & 0x3f)]
                output[out + 3] = table[Int(value & 0x3f)]
                index += 3
                out += 4
            }
            switch count - index {
            case 1:
                let value = UInt32(bytes[index]) << 16
                output[out] = table[Int(value >> 18 & 0x3f)]
                output[out + 1] = table[Int(value >> 12 & 0x3f)]
            case 2:
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                output[out] = table[Int(value >> 18 & 0x3f)]
                output[out + 1] = table[Int(value >> 12 & 0x3f)]
                output[out + 2] = table[Int(value >> 6 & 0x3f)]
            default:
                break
            }
        }
    }

    func encode(_ bytes: [UInt8]) -> String {
        let length = Self.encodedLength(bytes.count)
        return bytes.withUnsafeBufferPointer { bytes in
            String(unsafeUninitializedCapacity: length) { output in
                encode(bytes, to: output)
                return length
            }
        }
    }

    /// Decodes `text`; nil when it is not an unpadded encoding (a canonical one unless `canonical` is false, which
    /// lets the bits after the last byte be anything, as RFC 4648 section 3.5 allows a decoder).
    func decode(_ text: UnsafeBufferPointer<UInt8>, canonical: Bool = true) -> [UInt8]? {
        let count = text.count
        if count % 4 == 1 { return nil }
        let length = count / 4 * 3 + max(0, count % 4 - 1)
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
            initialized = length
            valid = reverse.withUnsafeBufferPointer { table -> Bool in
                var index = 0
                var out = 0
                while index + 4 <= count {
                    let a = table[Int(text[index])], b = table[Int(text[index + 1])]
                    let c = table[Int(text[index + 2])], d = table[Int(text[index + 3])]
                    if (a | b | c | d) & 0xc0 != 0 { return false }
                    let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[out] = UInt8(truncatingIfNeeded: value >> 16)
                    output[out + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    output[out + 2] = UInt8(truncatingIfNeeded: value)
                    index += 4
                    out += 3
                }
                switch count - index {
                case 2:
                    let a = table[Int(text[index])], b = table[Int(text[index + 1])]
                    if (a | b) & 0xc0 != 0 || (canonical && b & 0x0f != 0) { return false }
                    output[out] = a << 2 | b >> 4
                case 3:
                    let a = table[Int(text[index])], b = table[Int(text[index + 1])], c = table[Int(text[index + 2])]
                    if (a | b | c) & 0xc0 != 0 || (canonical && c & 0x03 != 0) { return false }
                    output[out] = a << 2 | b >> 4
                    output[out + 1] = (b & 0x0f) << 4 | c >> 2
                default:
                    break
                }
                return true
            }
            // Every byte was written when valid; an invalid result is thrown away, but keep it defined.
            if !valid { output.initialize(repeating: 0) }
        }
        return valid ? output : nil
    }

    func decode(_ text: String, canonical: Bool = true) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0, canonical: canonical) }
    }
}
