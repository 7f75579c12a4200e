import Testing

@testable import OutboundSocket

@Suite("RemoteAddress and AddressPolicy")
struct AddressPolicyTests {
    @Test(
        "every IPv4 spelling parses to the address a socket would reach",
        arguments: [
            ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0x7f000001", "127.0.0.1"),
            ("0X7F000001", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"), ("0177.0000.0.01", "127.0.0.1"),
            ("127.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("017700000001", "127.0.0.1"),
            ("127.0.0.1.", "127.0.0.1"), ("0", "0.0.0.0"), ("169.254.43518", "169.254.169.254"),
            ("0xa9fea9fe", "169.254.169.254"), ("10.1", "10.0.0.1"), ("8.8.8.8", "8.8.8.8"),
        ])
    func ipv4Spellings(text: String, expected: String) {
        #expect(RemoteAddress(literal: text)?.description == expected)
    }

    @Test("invalid IPv4 spellings are invalid, names are not IPv4")
    func ipv4Invalid() {
        #expect(RemoteAddress.parseIPv4("256.0.0.1") == .invalid)
        #expect(RemoteAddress.parseIPv4("1.2.3.4.5") == .invalid)
        #expect(RemoteAddress.parseIPv4("4294967296") == .invalid)
        #expect(RemoteAddress.parseIPv4("089.0.0.1") == .invalid)
        #expect(RemoteAddress.parseIPv4("example.com") == .notIPv4)
        #expect(RemoteAddress.parseIPv4("1.example") == .notIPv4)
        #expect(RemoteAddress.parseIPv4("example.0x1") == .invalid)
    }

    @Test(
        "IPv6 text parses and prints in RFC 5952 form",
        arguments: [
            ("::1", "::1"), ("::", "::"), ("0:0:0:0:0:0:0:1", "::1"), ("::ffff:127.0.0.1", "::ffff:7f00:1"),
            ("64:ff9b::169.254.169.254", "64:ff9b::a9fe:a9fe"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
            ("FE80::1", "fe80::1"),
        ])
    func ipv6(text: String, expected: String) {
        #expect(RemoteAddress(literal: text)?.description == expected)
    }

    @Test("malformed IPv6 is refused")
    func ipv6Invalid() {
        for text in ["1::2::3", "12345::", "::1%eth0", "1:2:3:4:5:6:7:8:9", "::256.0.0.1", "::1.2.3", "g::1"] {
            #expect(RemoteAddress(literal: text) == nil, "\(text)")
        }
    }

    @Test(
        "categories of special addresses",
        arguments: [
            ("127.0.0.1", AddressCategory.loopback), ("10.2.3.4", .private), ("172.16.0.1", .private),
            ("172.31.255.255", .private), ("172.32.0.1", .global), ("192.168.0.1", .private),
            ("169.254.169.254", .linkLocal), ("100.64.0.1", .sharedAddressSpace),
            ("100.127.255.255", .sharedAddressSpace),
            ("100.128.0.1", .global), ("0.0.0.0", .unspecified), ("224.0.0.1", .multicast),
            ("239.255.255.250", .multicast), ("255.255.255.255", .broadcast), ("240.0.0.1", .reserved),
            ("192.0.2.1", .reserved), ("8.8.8.8", .global), ("::1", .loopback), ("::", .unspecified),
            ("fe80::1", .linkLocal), ("fc00::1", .private), ("fd12:3456::1", .private), ("ff02::1", .multicast),
            ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .private), ("::ffff:8.8.8.8", .global),
            ("64:ff9b::7f00:1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::808:808", .global),
            ("2002:7f00:1::", .loopback), ("2001:db8::1", .reserved), ("2606:4700::1111", .global),
            ("::127.0.0.1", .loopback), ("100.100.100.200", .metadata), ("::ffff:100.100.100.200", .metadata),
            ("fd00:ec2::254", .metadata), ("fd00:ec2::253", .private),
        ])
    func categories(text: String, expected: AddressCategory) throws {
        let address = try #require(RemoteAddress(literal: text))
        #expect(AddressPolicy.category(of: address) == expected)
    }

    @Test("metadata addresses outside link-local stay closed with private addresses allowed, open by allow-list")
    func metadataNeedsAllowList() throws {
        let open = AddressPolicy(allowPrivate: true)
        for text in ["100.100.100.200", "64:ff9b::6464:64c8", "fd00:ec2::254", "169.254.169.254"] {
            #expect(!open.allows(try #require(RemoteAddress(literal: text)), host: "hash.example"), "\(text)")
        }
        #expect(open.allows(try #require(RemoteAddress(literal: "100.100.100.199")), host: "hash.example"))
        let listed = AddressPolicy(allowPrivate: true, allowedHosts: ["metadata.internal"])
        #expect(listed.allows(try #require(RemoteAddress(literal: "100.100.100.200")), host: "metadata.internal"))
    }

    @Test("the default policy allows only global unicast")
    func defaultPolicy() throws {
        let policy = AddressPolicy()
        #expect(policy.allows(try #require(RemoteAddress(literal: "93.184.216.34")), host: "example.com"))
        for text in ["127.0.0.1", "10.0.0.1", "169.254.169.254", "100.64.0.1", "::1", "fc00::1", "::ffff:127.0.0.1"] {
            #expect(!policy.allows(try #require(RemoteAddress(literal: text)), host: "example.com"), "\(text)")
        }
    }

    @Test("allowPrivate opens private ranges but not link-local, unspecified, multicast or broadcast")
    func allowPrivate() throws {
        let policy = AddressPolicy(allowPrivate: true)
        for text in ["127.0.0.1", "10.0.0.1", "192.168.1.1", "100.64.0.1", "::1", "fd00::1"] {
            #expect(policy.allows(try #require(RemoteAddress(literal: text)), host: "h"), "\(text)")
        }
        for text in ["169.254.169.254", "fe80::1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::"] {
            #expect(!policy.allows(try #require(RemoteAddress(literal: text)), host: "h"), "\(text)")
        }
    }

    @Test("the allow-list matches names case-insensitively and literals in any spelling")
    func allowList() throws {
        let policy = AddressPolicy(allowedHosts: ["Hashes.Internal.", "127.0.0.1", "169.254.169.254"])
        let loopback = try #require(RemoteAddress(literal: "127.0.0.1"))
        #expect(policy.allows(try #require(RemoteAddress(literal: "10.1.2.3")), host: "hashes.internal"))
        #expect(policy.allows(loopback, host: "2130706433"))
        #expect(policy.allows(try #require(RemoteAddress(literal: "169.254.169.254")), host: "169.254.169.254"))
        #expect(!policy.allows(try #require(RemoteAddress(literal: "10.1.2.3")), host: "other.internal"))
        #expect(!policy.allows(try #require(RemoteAddress(literal: "0.0.0.0")), host: "hashes.internal"))
    }
}
