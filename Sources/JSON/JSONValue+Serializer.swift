extension JSONValue {
    /// The compact JSON text (no spaces), members in order, as UTF-8 bytes.
    ///
    /// Strings escape `"`, `\` and control characters; non-finite doubles are written as `null`.
    public func serialize() -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    /// Appends the compact JSON text to `output`.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .string(let value):
            Self.writeString(value, to: &output)
        case .int(let value):
            Self.writeInteger(value, to: &output)
        case .double(let value):
            if value.isFinite {
                // Swift's shortest round-trip form ("0.5", "1e-05", "1e+20") is valid JSON.
                output.append(contentsOf: "\(value)".utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            members.withUnsafeBufferPointer { members in  // in place: a copy of each member retained its parts
                for index in members.indices {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    Self.writeString(members[index].0, to: &output)
                    output.append(UInt8(ascii: ":"))
                    members[index].1.write(to: &output)
                }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeInteger(_ value: Int64, to output: inout [UInt8]) {
        if value >= 0, value < 10 {
            output.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var magnitude = value.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { output.append(UInt8(ascii: "-")) }
            output.append(contentsOf: buffer[(20 - count)...])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Fast path: most strings (claims, kids, base64) need no escaping and are copied at once, scanned over
        // their contiguous UTF-8 (native strings) rather than through the UTF-8 view's iterator.
        let copied = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !needsEscaping(bytes) else { return false }
            output.append(contentsOf: bytes)
            output.append(UInt8(ascii: "\""))
            return true
        }
        if copied == true { return }
        for byte in value.utf8 {
            if let escaped = shortEscape(byte) {
                output.append(UInt8(ascii: "\\"))
                output.append(escaped)
            } else if byte < 0x20 {
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0f)])
            } else {
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The letter that follows the backslash in the two-character escape of `byte`, or nil when it has none.
    static func shortEscape(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
        case 0x0a: UInt8(ascii: "n")
        case 0x0d: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        case 0x08: UInt8(ascii: "b")
        case 0x0c: UInt8(ascii: "f")
        default: nil
        }
    }

    /// Whether `bytes` hold a control character, a quote or a backslash: eight bytes at a time, as most
    /// strings written (claims, kids, base64) hold none.
    static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var i = 0
        while bytes.count - i >= 8 {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let below0x20 = (word &- ones &* 0x20) & ~word & highs != 0
            if below0x20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C)) { return true }
            i += 8
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }
}
