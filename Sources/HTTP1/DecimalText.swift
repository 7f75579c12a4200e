extension Array where Element == UInt8 {
    /// Appends `value` in decimal, as `String(value)` writes it, without making a String: content lengths,
    /// access-log fields and JSON numbers on per-request paths.
    public mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        // 20 digits hold any UInt64.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        Swift.withUnsafeMutableBytes(of: &digits) { buffer in
            let start = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let count = DecimalText.write(value.magnitude, to: start)
            append(contentsOf: UnsafeBufferPointer(start: start, count: count))
        }
    }
}

/// Decimal digits written straight to memory, for writers that fill a buffer themselves.
@usableFromInline
package enum DecimalText {
    /// Writes `value`'s decimal digits (no sign) at `out` and returns how many: at most 20.
    @inlinable @inline(__always)
    package static func write(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        rest = value
        var index = count
        repeat {
            index -= 1
            out[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while index > 0
        return count
    }
}
