/// A CIDR block such as `10.0.0.0/8` or `2001:db8::/32`; a bare address is a /32 or /128.
public struct IPNetwork: Sendable, Hashable {
    /// The network's first address bytes (host bits cleared).
    public let prefix: IPAddress
    /// Prefix length in bits.
    public let length: Int

    /// Parses `address/length` or a bare address; `nil` when malformed or the length is out of range.
    public init?(_ text: String) {
        let parts = IPAddress.trimmingBlanks(text).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(String(parts[0])) else { return nil }
        // `::ffff:10.0.0.0/104` is stored as an IPv4 address, so it names the IPv4 block 10.0.0.0/8.
        let mapped = address.isIPv4 && parts[0].contains(":")
        let maximum = mapped ? 128 : address.bytes.count * 8
        var length = address.bytes.count * 8
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...maximum).contains(parsed), !mapped || parsed >= 96 else {
                return nil
            }
            length = mapped ? parsed - 96 : parsed
        }
        guard let masked = IPAddress(bytes: Self.mask(address.bytes, length)) else { return nil }
        self.prefix = masked
        self.length = length
    }

    /// The block of `address` with its first `length` bits; `nil` when `length` is past the address's bits.
    public init?(_ address: IPAddress, length: Int) {
        guard (0...address.bytes.count * 8).contains(length),
            let masked = IPAddress(bytes: Self.mask(address.bytes, length))
        else { return nil }
        self.prefix = masked
        self.length = length
    }

    /// Whether `address` lies in this block (an IPv4 address never lies in an IPv6 block, and back).
    public func contains(_ address: IPAddress) -> Bool {
        address.bytes.count == prefix.bytes.count && Self.mask(address.bytes, length) == prefix.bytes
    }

    private static func mask(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let bitsHere = min(8, max(0, length - index * 8))
            result[index] &= bitsHere == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
        }
        return result
    }
}
