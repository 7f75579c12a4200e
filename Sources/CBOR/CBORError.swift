/// Why an input is not one well-formed, canonical, definite-length CBOR item within the limits.
///
/// Each case carries the byte offset where the decoder stopped, for tests and logs; no case echoes input bytes.
public enum CBORError: Error, Sendable, Equatable {
    /// The input ends inside an item (a head, a string, or a container's elements).
    case truncated(offset: Int)
    /// An indefinite-length string, array or map (additional information 31), or a "break" byte: refused, as
    /// CTAP2's canonical form and RFC 8949 section 4.2.1 (core deterministic encoding) forbid them.
    case indefiniteLength(offset: Int)
    /// Additional information 28, 29 or 30, which RFC 8949 reserves.
    case reservedAdditionalInformation(offset: Int)
    /// An argument not in its shortest form (a length or integer of 10 written in two bytes, a two-byte simple value
    /// under 32): not the preferred serialization that deterministic encoding requires.
    case nonCanonicalHead(offset: Int)
    /// A map key that does not sort after the key before it (bytewise order of the encoded keys, which for
    /// definite-length shortest-form items is also CTAP2's canonical order).
    case keysOutOfOrder(offset: Int)
    /// A map key equal to the key before it.
    case duplicateKey(offset: Int)
    /// A text string that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// Bytes after the one top-level item.
    case trailingBytes(offset: Int)
    /// The input is larger than ``CBORLimits/maximumBytes``.
    case tooLarge
    /// Nesting deeper than ``CBORLimits/maximumDepth``.
    case tooDeep(offset: Int)
    /// More items than ``CBORLimits/maximumItems``.
    case tooManyItems(offset: Int)
}
