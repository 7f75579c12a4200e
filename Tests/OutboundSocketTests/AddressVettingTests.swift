import Testing

@testable import OutboundSocket

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Vetting a host's addresses and dialing the first that answers")
struct AddressVettingTests {
    let resolver = SystemResolver(maxOutstanding: 4)

    @Test("a literal is vetted as it is: loopback refused by default, allowed when private addresses are")
    func literal() throws {
        let loopback = RemoteHost.address(.v4(0x7f00_0001))
        #expect(throws: SocketError.notAllowed(.loopback)) {
            try AddressPolicy().vettedAddresses(
                of: loopback, hostText: "127.0.0.1", resolver: resolver, deadline: .after(.seconds(2)))
        }
        let open = AddressPolicy(allowPrivate: true)
        #expect(
            try open.vettedAddresses(
                of: loopback, hostText: "127.0.0.1", resolver: resolver, deadline: .after(.seconds(2)))
                == [.v4(0x7f00_0001)])
    }

    @Test("localhost names are refused before any lookup unless loopback is allowed; allowed ones resolve")
    func localhost() throws {
        for name in ["localhost", "api.localhost"] {
            #expect(throws: SocketError.notAllowed(.loopback)) {
                try AddressPolicy().vettedAddresses(
                    of: .name(name), hostText: name, resolver: resolver, deadline: .after(.seconds(2)))
            }
        }
        let addresses = try AddressPolicy(allowPrivate: true).vettedAddresses(
            of: .name("localhost"), hostText: "localhost", resolver: resolver, deadline: .after(.seconds(5)))
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { AddressPolicy.category(of: $0) == .loopback })
    }

    @Test("an allowed host name opens loopback for that host only")
    func allowedHost() throws {
        let policy = AddressPolicy(allowedHosts: ["relay.test"])
        let loopback = RemoteHost.address(.v4(0x7f00_0001))
        #expect(
            try policy.vettedAddresses(
                of: loopback, hostText: "relay.test", resolver: resolver, deadline: .after(.seconds(2)))
                == [.v4(0x7f00_0001)])
        #expect(throws: SocketError.notAllowed(.loopback)) {
            try policy.vettedAddresses(
                of: loopback, hostText: "other.test", resolver: resolver, deadline: .after(.seconds(2)))
        }
    }

    @Test("dialing tries the addresses in order and returns the first that answers; none answering is connectFailed")
    func dialsInOrder() throws {
        let (listener, port) = try Self.listen()
        defer { close(listener) }
        // 127.0.0.2 has no listener on this port: refused at once, then 127.0.0.1 answers.
        var attempts = 0
        let (connection, address) = try TCPConnection.connect(
            toFirstOf: [.v4(0x7f00_0002), .v4(0x7f00_0001)], port: port, timeout: .seconds(2),
            deadline: .after(.seconds(5)), attempted: { attempts += 1 })
        _ = connection
        #expect(address == .v4(0x7f00_0001))
        #expect(attempts == 2)
        #expect(throws: SocketError.connectFailed) {
            try TCPConnection.connect(
                toFirstOf: [.v4(0x7f00_0002)], port: port, timeout: .seconds(2), deadline: .after(.seconds(5)))
        }
        #expect(throws: SocketError.connectFailed) {
            try TCPConnection.connect(toFirstOf: [], port: port, timeout: .seconds(2), deadline: .after(.seconds(5)))
        }
    }

    /// A listening socket on 127.0.0.1 and a port the kernel chose.
    private static func listen() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(bound == 0 && Glibc.listen(fd, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
