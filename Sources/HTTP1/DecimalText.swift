extension Array where Element == UInt8 {
    /// Appends `value` in decimal, as `String(value)` writes it, without making a String: content lengths,
    /// access-log fields and JSON numbers on per-request paths.
    public mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        guard rest > 0 else {
            append(UInt8(ascii: "0"))
            return
        }
        // The digits come out last first; 20 hold any UInt64.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        Swift.withUnsafeMutableBytes(of: &digits) { buffer in
            var count = 0
            while rest > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            while count > 0 {
                count -= 1
                append(buffer[count])
            }
        }
    }
}
