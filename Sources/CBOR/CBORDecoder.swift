/// A strict decoder of definite-length CBOR (RFC 8949) in canonical form, for input nobody vouches for (WebAuthn's
/// attestation objects and COSE keys come from the browser).
///
/// What it accepts is the well-formed, definite-length subset in core deterministic encoding (RFC 8949 section
/// 4.2.1), which for definite lengths is also CTAP2's canonical form:
/// - every head in its shortest form (``CBORError/nonCanonicalHead(offset:)`` otherwise), floats excepted: a float is
///   taken in whatever width it is written;
/// - no indefinite-length item and no "break" byte (``CBORError/indefiniteLength(offset:)``);
/// - map keys in strictly increasing bytewise order of their encodings, so no key twice
///   (``CBORError/keysOutOfOrder(offset:)``, ``CBORError/duplicateKey(offset:)``);
/// - text strings in valid UTF-8; tags and simple values of any number (their meaning is the caller's).
///
/// Bounds: ``CBORLimits`` caps the input's size, the nesting depth and the number of items; a declared length is
/// checked against the bytes that remain before anything is allocated, so a header claiming 2^64 elements costs
/// nothing. Pure: bytes in, a value or a ``CBORError`` out.
public struct CBORDecoder: Sendable {
    /// The bounds of every decode.
    public let limits: CBORLimits

    /// A decoder with `limits` (default ``CBORLimits/init()``).
    public init(limits: CBORLimits = CBORLimits()) {
        self.limits = limits
    }

    /// Decodes `bytes` as exactly one item.
    /// - Throws: ``CBORError``; ``CBORError/trailingBytes(offset:)`` when bytes follow the item.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        let (value, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw .trailingBytes(offset: end) }
        return value
    }

    /// Decodes the one item that starts at `offset` in `bytes`, which may go on after it (the COSE key inside
    /// WebAuthn's authenticator data is followed by extensions).
    /// - Returns: the item and the offset just past it.
    /// - Throws: ``CBORError``. The size limit applies to what follows `offset`.
    public func decodePrefix(_ bytes: [UInt8], from offset: Int) throws(CBORError) -> (CBORValue, end: Int) {
        precondition(offset >= 0 && offset <= bytes.count, "offset outside the input")
        guard bytes.count - offset <= limits.maximumBytes else { throw .tooLarge }
        var reader = Reader(bytes: bytes, position: offset, limits: limits)
        let value = try reader.item(depth: 1)
        return (value, reader.position)
    }
}

/// The decoding pass over one input: the position and the items counted so far.
private struct Reader {
    let bytes: [UInt8]
    var position: Int
    let limits: CBORLimits
    var items = 0

    init(bytes: [UInt8], position: Int, limits: CBORLimits) {
        self.bytes = bytes
        self.position = position
        self.limits = limits
    }

    var remaining: Int { bytes.count - position }

    mutating func byte() throws(CBORError) -> UInt8 {
        guard position < bytes.count else { throw .truncated(offset: position) }
        defer { position += 1 }
        return bytes[position]
    }

    /// `count` bytes as a big-endian unsigned integer (count is 1, 2, 4 or 8).
    mutating func bigEndian(_ count: Int) throws(CBORError) -> UInt64 {
        guard remaining >= count else { throw .truncated(offset: bytes.count) }
        var value: UInt64 = 0
        for index in position..<(position + count) { value = value << 8 | UInt64(bytes[index]) }
        position += count
        return value
    }

    /// One item at `depth`.
    mutating func item(depth: Int) throws(CBORError) -> CBORValue {
        let start = position
        guard depth <= limits.maximumDepth else { throw .tooDeep(offset: start) }
        items += 1
        guard items <= limits.maximumItems else { throw .tooManyItems(offset: start) }
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1f
        if major == 7 { return try simpleOrFloat(info: info, start: start) }
        let argument = try argument(info: info, start: start)
        switch major {
        case 0:
            return .unsigned(argument)
        case 1:
            return .negative(argument)
        case 2:
            return .bytes(try string(length: argument))
        case 3:
            let stringStart = position
            let utf8 = try string(length: argument)
            guard let text = String(validating: utf8, as: UTF8.self) else { throw .invalidUTF8(offset: stringStart) }
            return .text(text)
        case 4:
            // Each element takes at least one byte: a count beyond the bytes left is truncated, not allocated.
            guard argument <= UInt64(remaining) else { throw .truncated(offset: bytes.count) }
            var elements: [CBORValue] = []
            elements.reserveCapacity(Int(argument))
            for _ in 0..<argument { elements.append(try item(depth: depth + 1)) }
            return .array(elements)
        case 5:
            guard argument <= UInt64(remaining / 2) else { throw .truncated(offset: bytes.count) }
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(Int(argument))
            var previousKey: Range<Int>?
            for _ in 0..<argument {
                let keyStart = position
                let key = try item(depth: depth + 1)
                let keyBytes = keyStart..<position
                if let previousKey {
                    switch compare(previousKey, keyBytes) {
                    case .orderedSame: throw .duplicateKey(offset: keyStart)
                    case .orderedDescending: throw .keysOutOfOrder(offset: keyStart)
                    case .orderedAscending: break
                    }
                }
                previousKey = keyBytes
                entries.append(CBORMapEntry(key: key, value: try item(depth: depth + 1)))
            }
            return .map(entries)
        default:  // 6
            return .tagged(argument, try item(depth: depth + 1))
        }
    }

    /// The argument of a head whose major type is 0 to 6, checked to be in its shortest form.
    mutating func argument(info: UInt8, start: Int) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24:
            return UInt64(info)
        case 24, 25, 26, 27:
            let width = 1 << Int(info - 24)
            let value = try bigEndian(width)
            // The shortest form: 24 needs a value of at least 24, each wider form one too large for the narrower.
            let smallest: UInt64 = width == 1 ? 24 : 1 << (4 * width)
            guard value >= smallest else { throw .nonCanonicalHead(offset: start) }
            return value
        case 31:
            throw .indefiniteLength(offset: start)
        default:
            throw .reservedAdditionalInformation(offset: start)
        }
    }

    /// A definite-length string's bytes, checked against what remains before any copy.
    mutating func string(length: UInt64) throws(CBORError) -> [UInt8] {
        guard length <= UInt64(remaining) else { throw .truncated(offset: bytes.count) }
        let end = position + Int(length)
        defer { position = end }
        return Array(bytes[position..<end])
    }

    /// Major type 7: simple values and floats.
    mutating func simpleOrFloat(info: UInt8, start: Int) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .boolean(false)
        case 21: return .boolean(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = try byte()
            // RFC 8949 section 3.3: a two-byte simple value under 32 is not well-formed.
            guard value >= 32 else { throw .nonCanonicalHead(offset: start) }
            return .simple(value)
        case 25: return .float(Self.halfToDouble(UInt16(try bigEndian(2))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try bigEndian(4)))))
        case 27: return .float(Double(bitPattern: try bigEndian(8)))
        case 31: throw .indefiniteLength(offset: start)
        default: throw .reservedAdditionalInformation(offset: start)
        }
    }

    /// The value of an IEEE 754 half-precision float (RFC 8949 Appendix D).
    static func halfToDouble(_ half: UInt16) -> Double {
        let exponent = Int((half >> 10) & 0x1f)
        let mantissa = Double(half & 0x3ff)
        let magnitude: Double =
            switch exponent {
            case 0: mantissa * 0x1p-24
            case 31: mantissa == 0 ? .infinity : .nan
            default: (1 + mantissa / 1024) * Double(sign: .plus, exponent: exponent - 15, significand: 1)
            }
        return half & 0x8000 != 0 ? -magnitude : magnitude
    }

    /// Bytewise comparison of two ranges of the input (the encoded keys of a map).
    func compare(_ a: Range<Int>, _ b: Range<Int>) -> Ordering {
        for (x, y) in zip(bytes[a], bytes[b]) where x != y { return x < y ? .orderedAscending : .orderedDescending }
        if a.count == b.count { return .orderedSame }
        return a.count < b.count ? .orderedAscending : .orderedDescending
    }

    enum Ordering { case orderedAscending, orderedSame, orderedDescending }
}
