/// One decoded CBOR data item (RFC 8949 section 3), as ``CBORDecoder`` returns it.
///
/// Integers keep their full range: major type 0 as ``unsigned(_:)`` and major type 1 as ``negative(_:)`` holding the
/// encoded argument `n` of the value `-1 - n`, so that -18446744073709551616 is representable. A map keeps its entries
/// in encoded order, which the decoder has checked is the canonical one, with no key twice.
public indirect enum CBORValue: Sendable, Equatable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the negative integer `-1 - n`, holding `n`.
    case negative(UInt64)
    /// Major type 2: a definite-length byte string.
    case bytes([UInt8])
    /// Major type 3: a definite-length text string, valid UTF-8.
    case text(String)
    /// Major type 4: a definite-length array.
    case array([CBORValue])
    /// Major type 5: a definite-length map, its entries in (canonical) encoded order.
    case map([CBORMapEntry])
    /// Major type 6: a tag number and its content.
    case tagged(UInt64, CBORValue)
    /// Major type 7, values 20 and 21.
    case boolean(Bool)
    /// Major type 7, value 22.
    case null
    /// Major type 7, value 23.
    case undefined
    /// Major type 7: any other simple value (0 to 19, 32 to 255).
    case simple(UInt8)
    /// Major type 7: a half-, single- or double-precision float, widened to `Double`.
    case float(Double)

    /// The value of an integer item that fits an `Int64` (CBOR's -2^63 through 2^63 - 1); nil otherwise.
    public var int64Value: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// The bytes of a byte string; nil for any other item.
    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    /// The text of a text string; nil for any other item.
    public var textValue: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The entries of a map; nil for any other item.
    public var mapEntries: [CBORMapEntry]? {
        if case .map(let entries) = self { entries } else { nil }
    }

    /// The value under `key` in a map (keys are unique, so at most one); nil when this is not a map or has no such key.
    public subscript(key: CBORValue) -> CBORValue? {
        mapEntries?.first { $0.key == key }?.value
    }

    /// The value under the integer key `key` in a map (COSE labels).
    public subscript(int key: Int64) -> CBORValue? {
        self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }

    /// The value under the text key `key` in a map.
    public subscript(text key: String) -> CBORValue? {
        self[.text(key)]
    }
}

/// One entry of a CBOR map.
public struct CBORMapEntry: Sendable, Equatable {
    /// The key.
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// An entry.
    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}
