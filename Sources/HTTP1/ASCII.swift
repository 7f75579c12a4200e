// Byte-level helpers shared by the parser, the headers and the request helpers. Internal on purpose.

extension UInt8 {
    /// The byte lowercased when it is an ASCII capital letter.
    @inline(__always)
    var asciiLowercased: UInt8 { (self >= 0x41 && self <= 0x5A) ? self | 0x20 : self }

    /// RFC 9110 `tchar`: the bytes allowed in a token (method, header name, transfer coding).
    ///
    /// Two 64-bit masks instead of a table: no global to initialize-check on every byte.
    @inline(__always)
    var isTokenCharacter: Bool {
        if self < 64 { return (ASCII.tokenMaskLow >> UInt64(self)) & 1 == 1 }
        if self < 128 { return (ASCII.tokenMaskHigh >> UInt64(self - 64)) & 1 == 1 }
        return false
    }
}

/// Byte tables and comparisons that avoid building Strings.
package enum ASCII {
    /// Bit `b` set when byte `b` (0...63) is a `tchar`: ! # $ % & ' * + - . 0-9.
    static let tokenMaskLow: UInt64 = 0x03FF_6CFA_0000_0000
    /// Bit `b - 64` set when byte `b` (64...127) is a `tchar`: A-Z ^ _ ` a-z | ~.
    static let tokenMaskHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    /// Whether two strings are equal ignoring ASCII case, without allocating.
    @inline(__always)
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        // Lengths first: most names compared differ in length, and then nothing is copied or opened.
        guard a.utf8.count == b.utf8.count else { return false }
        return a.withUTF8Bytes { pa in
            b.withUTF8Bytes { pb in equalsIgnoringCase(pa, pb) }
        }
    }

    /// Whether two byte runs are equal ignoring ASCII case.
    @inline(__always)
    static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var i = 0
        while i < a.count {
            if a[i] != b[i] && a[i].asciiLowercased != b[i].asciiLowercased { return false }
            i += 1
        }
        return true
    }

    /// Whether `bytes[start..<end]` are all field-value bytes (`UInt8.isFieldValueByte`). Eight bytes at
    /// a time, the last eight overlapping those before them rather than checked one by one: a word with no byte
    /// below 0x20 and none equal to 0x7F passes in a few instructions; a word with one (a control, DEL or a
    /// lawful HTAB) is decided byte by byte. Runs shorter than eight bytes are checked byte by byte.
    static func areFieldValueBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard let base = bytes.baseAddress, start < end else { return true }
        guard end - start >= 8 else { return areFieldValueBytesOneByOne(base, start, end) }
        var i = start
        while end - i > 8 {
            guard isFieldValueWord(base, i) else { return false }
            i += 8
        }
        return isFieldValueWord(base, end - 8)
    }

    /// Whether the eight bytes at `base + i` are field-value bytes.
    @inline(__always)
    private static func isFieldValueWord(_ base: UnsafePointer<UInt8>, _ i: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
        let below0x20 = (word &- ones &* 0x20) & ~word & highs
        let xorDEL = word ^ (ones &* 0x7F)
        let hasDEL = (xorDEL &- ones) & ~xorDEL & highs
        return below0x20 | hasDEL == 0 || areFieldValueBytesOneByOne(base, i, i + 8)
    }

    private static func areFieldValueBytesOneByOne(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var i = start
        while i < end {
            if !base[i].isFieldValueByte { return false }
            i += 1
        }
        return true
    }

    /// Whether `buffer` holds `bytes` at `start`: compared eight bytes at a time.
    static func holds(_ buffer: [UInt8], _ bytes: [UInt8], at start: Int) -> Bool {
        guard start >= 0, buffer.count - start >= bytes.count else { return false }
        return buffer.withUnsafeBufferPointer { buffer in
            bytes.withUnsafeBufferPointer { own in
                guard let theirs = buffer.baseAddress, let ours = own.baseAddress else { return own.isEmpty }
                let count = own.count
                let a = UnsafeRawPointer(theirs + start)
                let b = UnsafeRawPointer(ours)
                var i = 0
                while count - i >= 8 {
                    if a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    {
                        return false
                    }
                    i += 8
                }
                while i < count {
                    if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) {
                        return false
                    }
                    i += 1
                }
                return true
            }
        }
    }

    /// The index of the first LF in `bytes` at or after `start`, nil when there is none. Eight bytes at a
    /// time: the lowest byte that the zero-byte test flags in a word is always a true match.
    static func firstLF(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let ones: UInt64 = 0x0101_0101_0101_0101
        var i = start
        while bytes.count - i >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) ^ (ones &* 0x0A)
            let zeros = (word &- ones) & ~word & (ones &* 0x80)
            if zeros != 0 { return i + zeros.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < bytes.count {
            if base[i] == .lf { return i }
            i += 1
        }
        return nil
    }

    /// The string with ASCII spaces and tabs removed from both ends.
    package static func trimmed<S: StringProtocol>(_ text: S) -> Substring {
        let text = Substring(text)
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while end > start {
            let before = utf8.index(before: end)
            guard utf8[before] == 0x20 || utf8[before] == 0x09 else { break }
            end = before
        }
        return text[start..<end]
    }

    /// The value of an ASCII hex digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}

extension UInt8 {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// RFC 9110 field-value bytes: VCHAR, obs-text, SP and HTAB; never NUL, CR, LF or other controls.
    @inline(__always)
    var isFieldValueByte: Bool { (self >= 0x20 && self != 0x7F) || self == 0x09 }
}

extension String {
    /// Runs `body` with the string's UTF-8 bytes: in place for a native string (no copy, no exclusive access
    /// to a `var`), through a copy for a bridged one. For per-request paths (header fields, log values).
    @inlinable @inline(__always)
    package func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
