import Glibc

/// IP address text to bytes and CIDR matching, for SPF. Pure.
enum IPAddressBytes {
    /// 4 bytes for IPv4 (and IPv4-mapped IPv6, which SPF treats as IPv4), 16 for IPv6; nil when not an address.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Array(bytes[12...])
        }
        return bytes
    }

    /// Whether `address` is in `network`/`prefix` (both of the same family).
    static func matches(_ address: [UInt8], _ network: [UInt8], prefix: Int) -> Bool {
        guard address.count == network.count, prefix >= 0, prefix <= address.count * 8 else { return false }
        var bits = prefix
        for (a, n) in zip(address, network) {
            if bits <= 0 { return true }
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if a & mask != n & mask { return false }
            bits -= 8
        }
        return true
    }
}
