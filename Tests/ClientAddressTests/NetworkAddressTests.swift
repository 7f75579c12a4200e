import Testing

@testable import ClientAddress

@Suite("Client addresses: parsing, CIDR blocks, X-Forwarded-For")
struct NetworkAddressTests {
    @Test("IPv4, IPv6, brackets, ports, zones and mapped addresses parse")
    func parsing() throws {
        #expect(IPAddress("127.0.0.1")?.bytes == [127, 0, 0, 1])
        #expect(IPAddress(" 10.1.2.3:8080 ")?.bytes == [10, 1, 2, 3])
        #expect(IPAddress("::ffff:192.0.2.7")?.bytes == [192, 0, 2, 7])
        #expect(IPAddress("[2001:db8::1]:443")?.bytes.count == 16)
        #expect(IPAddress("fe80::1%eth0")?.bytes.count == 16)
        #expect(try #require(IPAddress("::1")).bytes == [UInt8](repeating: 0, count: 15) + [1])
        #expect(IPAddress("") == nil)
        #expect(IPAddress("999.1.1.1") == nil)
        #expect(IPAddress("example.com") == nil)
        #expect(IPAddress("1.2.3") == nil)
    }

    @Test("Loopback is 127.0.0.0/8 (mapped into IPv6 too) and ::1; no other address, however close")
    func loopback() {
        for text in ["127.0.0.1", "127.255.255.254", "::ffff:127.0.0.1", "::1", "[::1]:143"] {
            #expect(IPAddress(text)?.isLoopback == true, "\(text)")
        }
        for text in ["128.0.0.1", "126.255.255.255", "10.0.0.1", "::ffff:192.0.2.7", "::2", "::", "::127.0.0.1"] {
            #expect(IPAddress(text)?.isLoopback == false, "\(text)")
        }
    }

    @Test("IPv6 clients count per /64, IPv4 clients per address")
    func rateLimitKeys() throws {
        let a = try #require(IPAddress("2001:db8:1:2:aaaa::1"))
        let b = try #require(IPAddress("2001:db8:1:2:bbbb::2"))
        let c = try #require(IPAddress("2001:db8:1:3::1"))
        #expect(a.rateLimitKey == b.rateLimitKey)
        #expect(a.rateLimitKey != c.rateLimitKey)
        #expect(IPAddress("10.0.0.1")?.rateLimitKey != IPAddress("10.0.0.2")?.rateLimitKey)
    }

    @Test("CIDR blocks contain what they should")
    func networks() throws {
        let ten = try #require(IPNetwork("10.0.0.0/8"))
        #expect(ten.contains(try #require(IPAddress("10.255.1.2"))))
        #expect(!ten.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("::a00:1"))))
        let host = try #require(IPNetwork("192.0.2.1"))
        #expect(host.contains(try #require(IPAddress("192.0.2.1"))))
        #expect(!host.contains(try #require(IPAddress("192.0.2.2"))))
        let v6 = try #require(IPNetwork("2001:db8::/32"))
        #expect(v6.contains(try #require(IPAddress("2001:db8:ffff::1"))))
        #expect(!v6.contains(try #require(IPAddress("2001:db9::1"))))
        let mapped = try #require(IPNetwork("::ffff:10.0.0.0/104"))
        #expect(mapped.contains(try #require(IPAddress("10.9.9.9"))))
        let odd = try #require(IPNetwork("172.16.0.0/12"))
        #expect(odd.contains(try #require(IPAddress("172.31.255.255"))))
        #expect(!odd.contains(try #require(IPAddress("172.32.0.0"))))
        #expect(IPNetwork("10.0.0.0/33") == nil)
        #expect(IPNetwork("10.0.0.0/x") == nil)
        #expect(IPNetwork("nonsense/8") == nil)
        #expect(IPNetwork("::ffff:10.0.0.0/90") == nil)
    }

    @Test("a literal address (SPF's ip4: and ip6:) is one inet_pton spelling: no brackets, port, zone or blanks")
    func literals() throws {
        #expect(IPAddress(literal: "192.0.2.7")?.bytes == [192, 0, 2, 7])
        #expect(IPAddress(literal: "::ffff:192.0.2.7")?.bytes == [192, 0, 2, 7])
        #expect(IPAddress(literal: "2001:db8::1") == IPAddress("2001:db8::1"))
        for text in ["", " 192.0.2.7", "192.0.2.7:25", "[2001:db8::1]", "fe80::1%eth0", "192.0.2", "x"] {
            #expect(IPAddress(literal: text) == nil, "\(text)")
        }
    }

    @Test("a block from an address and a length masks the host bits; a length past the address's bits is nil")
    func blocksFromLengths() throws {
        let address = try #require(IPAddress("192.0.2.77"))
        let block = try #require(IPNetwork(address, length: 24))
        #expect(block == IPNetwork("192.0.2.0/24"))
        #expect(block.contains(try #require(IPAddress("192.0.2.1"))))
        #expect(!block.contains(try #require(IPAddress("192.0.3.1"))))
        #expect(IPNetwork(address, length: 0)?.contains(try #require(IPAddress("203.0.113.9"))) == true)
        #expect(IPNetwork(address, length: 33) == nil)
        #expect(IPNetwork(address, length: -1) == nil)
        let v6 = try #require(IPAddress("2001:db8::1"))
        #expect(IPNetwork(v6, length: 128)?.contains(v6) == true)
        #expect(IPNetwork(v6, length: 129) == nil)
    }

    @Test("X-Forwarded-For counts only from trusted proxies")
    func forwardedFor() {
        let resolver = ClientAddressResolver(trustedProxies: ["10.0.0.0/8", "::1", "garbage"])
        #expect(resolver.trustedProxies.count == 2)
        // Untrusted peer: its header is ignored.
        #expect(resolver.resolve(peer: "203.0.113.9", forwardedFor: ["198.51.100.1"])?.description == "203.0.113.9")
        // Trusted peer: the nearest untrusted hop from the right.
        #expect(
            resolver.resolve(peer: "10.0.0.2", forwardedFor: ["198.51.100.1, 192.0.2.5, 10.0.0.7"])?.description
                == "192.0.2.5")
        #expect(resolver.resolve(peer: "::1", forwardedFor: ["198.51.100.1", "192.0.2.5"])?.description == "192.0.2.5")
        // Trusted peer without header, or a header of garbage: the peer.
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: [])?.description == "10.0.0.2")
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: ["bogus"])?.description == "10.0.0.2")
        // A malformed hop stops the walk at the last good address.
        #expect(
            resolver.resolve(peer: "10.0.0.2", forwardedFor: ["198.51.100.1, bogus, 10.0.0.3"])?.description
                == "10.0.0.3")
        #expect(resolver.resolve(peer: "", forwardedFor: ["198.51.100.1"]) == nil)
    }
}
