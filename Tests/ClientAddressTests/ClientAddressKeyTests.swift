import Testing

import ClientAddress

@Suite("Client address keys for rate limits and dynamic difficulty")
struct ClientAddressKeyTests {
    @Test("IPv4 counts alone, IPv6 by /64, IPv4-mapped as IPv4, garbage as itself")
    func keys() {
        #expect(ClientAddressKey.key(for: "192.0.2.1") == "192.0.2.1")
        #expect(ClientAddressKey.key(for: "2001:db8:1:2::1") == ClientAddressKey.key(for: "2001:db8:1:2:ffff::9"))
        #expect(ClientAddressKey.key(for: "2001:db8:1:2::1") != ClientAddressKey.key(for: "2001:db8:1:3::1"))
        #expect(ClientAddressKey.key(for: "2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2:0:0:0:0/64")
        #expect(ClientAddressKey.key(for: "2001:DB8:1:2::1") == "2001:db8:1:2:0:0:0:0/64")
        #expect(ClientAddressKey.key(for: "::1") == "0:0:0:0:0:0:0:0/64")
        #expect(ClientAddressKey.key(for: "::ffff:192.0.2.7") == "192.0.2.7")
        #expect(ClientAddressKey.key(for: "::ffff:c000:207") == "192.0.2.7")
        #expect(ClientAddressKey.key(for: "not:an:address") == "not:an:address")
        #expect(ClientAddressKey.key(for: "not an address") == "not an address")
        #expect(ClientAddressKey.key(for: "") == "")
    }

    @Test("A zone id is ignored: the address counts by its /64 like any other")
    func zones() {
        #expect(ClientAddressKey.key(for: "fe80::1%eth0") == "fe80:0:0:0:0:0:0:0/64")
        #expect(ClientAddressKey.key(for: "fe80::1%eth0") == ClientAddressKey.key(for: "fe80::2"))
    }
}
