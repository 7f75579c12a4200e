#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The key under which a client address is counted for dynamic difficulty.
///
/// An IPv4 address counts alone; an IPv6 address counts by its /64 network, because one subscriber
/// usually holds a whole /64 and could otherwise ask from 2^64 fresh addresses. IPv4-mapped IPv6
/// addresses (`::ffff:a.b.c.d`) count as their IPv4 address. Anything unparseable counts as itself.
enum ClientAddressKey {
    /// The counting key for `address` (the peer IP as text).
    static func key(for address: String) -> String {
        guard address.utf8.contains(UInt8(ascii: ":")) else { return address }
        var raw = in6_addr()
        let parsed = address.withCString { inet_pton(AF_INET6, $0, &raw) }
        guard parsed == 1 else { return address }
        let bytes = withUnsafeBytes(of: &raw) { Array($0) }
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
        if Array(bytes[0..<12]) == mappedPrefix {
            return "\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])"
        }
        return "v6:" + AgentProofOfWork.hex(bytes[0..<8]) + "::/64"
    }
}
