/// What kind of network an address belongs to, as far as outbound fetching cares.
public enum AddressCategory: String, Sendable, CaseIterable {
    /// A globally routable unicast address.
    case global
    /// `127.0.0.0/8`, `::1`.
    case loopback
    /// `10/8`, `172.16/12`, `192.168/16`, IPv6 unique local `fc00::/7` and site-local `fec0::/10`.
    case `private`
    /// `169.254/16` (cloud metadata lives here), `fe80::/10`.
    case linkLocal
    /// Carrier-grade NAT `100.64/10` (except the metadata address below).
    case sharedAddressSpace
    /// Cloud metadata services outside link-local: Alibaba Cloud's `100.100.100.200` (inside CGNAT) and
    /// AWS's IPv6 `fd00:ec2::254` (inside unique local). Treated like link-local.
    case metadata
    /// `0.0.0.0/8` ("this network") and `::`.
    case unspecified
    /// `224/4`, `ff00::/8`.
    case multicast
    /// `255.255.255.255`.
    case broadcast
    /// Documentation, benchmarking, protocol-assignment and reserved ranges (`192.0.0/24`,
    /// `192.0.2/24`, `198.18/15`, `198.51.100/24`, `203.0.113/24`, `240/4`, `2001:db8::/32`,
    /// `100::/64`, local-use NAT64 `64:ff9b:1::/48`): nothing a public hash URL should point at.
    case reserved

    /// Whether the operator switch for private addresses (or a host allow-list entry) lets this through.
    /// Unspecified, multicast and broadcast addresses are never fetched: no HTTP origin lives there.
    public var isOverridable: Bool {
        switch self {
        case .global, .unspecified, .multicast, .broadcast: return false
        case .loopback, .private, .linkLocal, .metadata, .sharedAddressSpace, .reserved: return true
        }
    }

    /// Whether `POSTERN_REMOTE_HASH_ALLOW_PRIVATE` opens it: every overridable category but link-local
    /// and metadata addresses, which only an explicit allow-list entry opens.
    public var opensWithAllowPrivate: Bool {
        isOverridable && self != .linkLocal && self != .metadata
    }
}

/// Decides which addresses an outbound fetch may connect to (CONTRACT 3.3).
///
/// Every address a host resolves to is vetted; one refused address refuses the whole host, so that
/// a name cannot hide a private address behind a public one. IPv6 forms that carry an IPv4 address
/// (IPv4-mapped, IPv4-compatible, NAT64 `64:ff9b::/96`, 6to4) are judged by the IPv4 address inside.
public struct AddressPolicy: Sendable, Equatable {
    /// Lets loopback, private, CGNAT and reserved addresses through
    /// (`POSTERN_REMOTE_HASH_ALLOW_PRIVATE=true`). Default false. Link-local addresses (where cloud
    /// metadata services live, `169.254.169.254`) and the metadata addresses elsewhere
    /// (``AddressCategory/metadata``) stay refused even then: only an explicit ``allowedHosts`` entry
    /// opens them.
    public var allowPrivate: Bool
    /// Host names (or IP literals) that may resolve to non-global addresses even when
    /// `allowPrivate` is off. Compared case-insensitively, without a trailing dot.
    public var allowedHosts: Set<String>

    /// Creates a policy.
    /// - Parameters:
    ///   - allowPrivate: let non-global addresses through for every host.
    ///   - allowedHosts: hosts let through even when `allowPrivate` is false.
    public init(allowPrivate: Bool = false, allowedHosts: [String] = []) {
        self.allowPrivate = allowPrivate
        self.allowedHosts = Set(allowedHosts.map(AddressPolicy.normalizedHost))
    }

    /// Classifies one address.
    public static func category(of address: RemoteAddress) -> AddressCategory {
        switch address {
        case .v4(let value):
            return category(ipv4: value)
        case .v6(let bytes):
            if let embedded = address.embeddedIPv4 { return category(ipv4: embedded) }
            return category(ipv6: bytes)
        }
    }

    /// Whether a connection to `address`, reached through the URL host `host`, is allowed.
    /// - Parameters:
    ///   - address: one resolved (or literal) address.
    ///   - host: the host as written in the URL, used for the allow-list.
    public func allows(_ address: RemoteAddress, host: String) -> Bool {
        let category = AddressPolicy.category(of: address)
        if category == .global { return true }
        guard category.isOverridable else { return false }
        if allowPrivate && category.opensWithAllowPrivate { return true }
        let name = AddressPolicy.normalizedHost(host)
        if allowedHosts.contains(name) { return true }
        // An allow-list entry written as an IP literal matches that address in any spelling.
        return allowedHosts.contains(address.description)
    }

    static func normalizedHost(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.count > 1 && name.hasSuffix(".") { name.removeLast() }
        if let literal = RemoteAddress(literal: name) { return literal.description }
        return name
    }

    private static func category(ipv4 a: UInt32) -> AddressCategory {
        func within(_ base: UInt32, _ prefix: UInt32) -> Bool {
            let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << (32 - prefix)
            return a & mask == base & mask
        }
        if a == 0xffff_ffff { return .broadcast }
        if within(0x0000_0000, 8) { return .unspecified }
        if within(0x7f00_0000, 8) { return .loopback }
        if within(0x0a00_0000, 8) || within(0xac10_0000, 12) || within(0xc0a8_0000, 16) { return .private }
        if within(0xa9fe_0000, 16) { return .linkLocal }
        if a == 0x6464_64c8 { return .metadata }  // 100.100.100.200
        if within(0x6440_0000, 10) { return .sharedAddressSpace }
        if within(0xe000_0000, 4) { return .multicast }
        if within(0xf000_0000, 4) || within(0xc000_0000, 24) || within(0xc000_0200, 24)
            || within(0xc612_0000, 15) || within(0xc633_6400, 24) || within(0xcb00_7100, 24)
        {
            return .reserved
        }
        return .global
    }

    /// `fd00:ec2::254`.
    private static let awsMetadataIPv6: [UInt8] = [0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54]

    private static func category(ipv6 b: [UInt8]) -> AddressCategory {
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] == 0xff { return .multicast }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }
        if b == awsMetadataIPv6 { return .metadata }
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .private }  // deprecated site-local fec0::/10
        if b[0] & 0xfe == 0xfc { return .private }  // unique local fc00::/7
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return .reserved }
        if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // discard-only 100::/64
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1 {
            return .reserved  // local-use NAT64 64:ff9b:1::/48
        }
        // Everything else outside 2000::/3 is unassigned or special; only global unicast is fetched.
        if b[0] & 0xe0 != 0x20 { return .reserved }
        return .global
    }
}
