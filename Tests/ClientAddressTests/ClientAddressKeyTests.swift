import Testing

import ClientAddress

@Suite("Client address keys for rate limits and dynamic difficulty")
struct ClientAddressKeyTests {
    private func key(_ peer: String) -> String { ClientAddressKey(peer: peer).description }

    @Test("IPv4 counts alone, IPv6 by /64, IPv4-mapped as IPv4, garbage as itself")
    func keys() {
        #expect(key("192.0.2.1") == "192.0.2.1")
        #expect(ClientAddressKey(peer: "2001:db8:1:2::1") == ClientAddressKey(peer: "2001:db8:1:2:ffff::9"))
        #expect(ClientAddressKey(peer: "2001:db8:1:2::1") != ClientAddressKey(peer: "2001:db8:1:3::1"))
        #expect(key("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2:0:0:0:0/64")
        #expect(key("2001:DB8:1:2::1") == "2001:db8:1:2:0:0:0:0/64")
        #expect(key("::1") == "0:0:0:0:0:0:0:0/64")
        #expect(key("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(key("::ffff:c000:207") == "192.0.2.7")
        #expect(key("not:an:address") == "not:an:address")
        #expect(key("not an address") == "not an address")
        #expect(key("") == "")
    }

    @Test("A zone id is ignored: the address counts by its /64 like any other")
    func zones() {
        #expect(key("fe80::1%eth0") == "fe80:0:0:0:0:0:0:0/64")
        #expect(ClientAddressKey(peer: "fe80::1%eth0") == ClientAddressKey(peer: "fe80::2"))
    }

    @Test("The key of a parsed address is the key of its text")
    func parsed() throws {
        let address = try #require(IPAddress("2001:db8:1:2::1"))
        #expect(ClientAddressKey(address) == ClientAddressKey(peer: "2001:db8:1:2::1"))
        #expect(ClientAddressKey(address) != ClientAddressKey(peer: "2001:db8:1:2::1 junk"))
    }
}
