/// A query message for one question (RFC 1035 section 4.1), recursion desired.
public struct DNSQuery: Sendable, Equatable {
    public let id: UInt16
    /// The name as asked, lower-cased, without a trailing dot.
    public let name: String
    public let type: DNSRecordType

    /// - Throws: `DNSError.invalidName`.
    public init(id: UInt16, name: String, type: DNSRecordType) throws {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard Self.isValid(name) else { throw DNSError.invalidName }
        self.id = id
        self.name = name
        self.type = type
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
        out.reserveCapacity(18 + name.utf8.count)
        out.append(contentsOf: [UInt8(id >> 8), UInt8(id & 0xFF)])
        out.append(contentsOf: [0x01, 0x00])  // RD
        out.append(contentsOf: [0, 1, 0, 0, 0, 0, 0, 0])  // one question
        out.append(contentsOf: Self.encode(name))
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
