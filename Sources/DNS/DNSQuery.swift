import AuthCrypto

/// A query message for one question (RFC 1035 section 4.1), recursion desired.
///
/// The name goes out with its letters in the case a mask says (the "0x20" defence,
/// draft-vixie-dnsext-dns0x20): a resolver echoes the question as it was asked, so a forged response must guess
/// one bit per letter on top of the 16-bit id and the port.
public struct DNSQuery: Sendable, Equatable {
    public let id: UInt16
    /// The name as asked, lower-cased, without a trailing dot.
    public let name: String
    /// ``name`` as it goes on the wire: the same letters, each upper-cased where the mask's bit was set. A response
    /// must carry exactly this question.
    public let wireName: String
    public let type: DNSRecordType

    /// - Parameter caseMask: bit `i % 8` of byte `i / 8` upper-cases the name's `i`-th byte when it is a letter;
    ///   bytes past the mask stay lower-case (empty: the name as is, lower-case).
    /// - Throws: `DNSError.invalidName`.
    public init(id: UInt16, name: String, type: DNSRecordType, caseMask: [UInt8] = []) throws {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard Self.isValid(name) else { throw DNSError.invalidName }
        self.id = id
        self.name = name
        self.wireName = Self.applying(caseMask, to: name)
        self.type = type
    }

    /// A query for `name` with a random id and a random case for each letter, both from ``SecureRandom``.
    /// - Throws: `DNSError.invalidName`.
    public static func random(name: String, type: DNSRecordType) throws -> DNSQuery {
        let random = SecureRandom.bytes(2 + 32)  // 32 bytes of mask cover the longest name, 253 bytes
        return try DNSQuery(
            id: UInt16(random[0]) << 8 | UInt16(random[1]), name: name, type: type, caseMask: Array(random[2...]))
    }

    /// `name` (lower-case ASCII) with the letters whose bit is set in `mask` upper-cased.
    static func applying(_ mask: [UInt8], to name: String) -> String {
        let bytes = name.utf8.enumerated().map { index, byte -> UInt8 in
            guard index / 8 < mask.count, mask[index / 8] & (1 << (index % 8)) != 0,
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            else { return byte }
            return byte - 0x20
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Labels of 1 to 63 bytes of letters, digits, `-` and `_`, at most 253 bytes in all.
    static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count)
                && label.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                        UInt8(ascii: "-"), UInt8(ascii: "_"):
                        true
                    default: false
                    }
                }
        }
    }

    /// The wire form: header, one question of class IN.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(18 + wireName.utf8.count)
        out.append(contentsOf: [UInt8(id >> 8), UInt8(id & 0xFF)])
        out.append(contentsOf: [0x01, 0x00])  // RD
        out.append(contentsOf: [0, 1, 0, 0, 0, 0, 0, 0])  // one question
        out.append(contentsOf: Self.encode(wireName))
        out.append(contentsOf: [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF), 0, 1])
        return out
    }

    /// `name` as length-prefixed labels and the root's zero byte.
    static func encode(_ name: String) -> [UInt8] {
        var out: [UInt8] = []
        for label in name.utf8.split(separator: UInt8(ascii: ".")) {
            out.append(UInt8(label.count))
            out.append(contentsOf: label)
        }
        out.append(0)
        return out
    }
}
