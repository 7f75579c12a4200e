extension Unicode.Scalar {
    /// `properties.isWhitespace`, answered without the property tables for ASCII (most of any message's text).
    @inline(__always)
    var isWhitespaceScalar: Bool {
        if value < 0x80 { return value == 0x20 || (0x09...0x0D).contains(value) }
        return properties.isWhitespace
    }

    /// `properties.isAlphabetic`, answered without the property tables for ASCII.
    @inline(__always)
    var isAlphabeticScalar: Bool {
        if value < 0x80 { return (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) }
        return properties.isAlphabetic
    }
}

extension String {
    /// The string of `scalars`, made from their UTF-8 bytes in one pass: appending to a `UnicodeScalarView` scalar by
    /// scalar costs several times as much, for every word of every message delivered.
    init<Scalars: Sequence<Unicode.Scalar>>(scalars: Scalars) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.underestimatedCount)
        for scalar in scalars { UTF8.encode(scalar) { bytes.append($0) } }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
