import ClientAddress
import Testing

@testable import SocketServer

/// The PROXY protocol header, versions 1 and 2, against the specification's layouts, fed whole and byte by byte.
@Suite("PROXY protocol header")
struct ProxyHeaderTests {
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    /// A v2 header as HAProxy's `send-proxy-v2` writes it for TCP over IPv4: 203.0.113.7:40000 -> 10.0.0.2:2525.
    static let version2IPv4: [UInt8] =
        signature + [0x21, 0x11, 0x00, 0x0C, 203, 0, 113, 7, 10, 0, 0, 2, 0x9C, 0x40, 0x09, 0xDD]

    @Test("v1 TCP4 and TCP6 name the client; the header's length is what follows it")
    func version1() throws {
        let line = Array("PROXY TCP4 203.0.113.7 10.0.0.2 40000 2525\r\n".utf8)
        #expect(ProxyHeader.parse(line + Array("EHLO".utf8)) == .complete(client: IPAddress("203.0.113.7"), length: line.count))
        let six = Array("PROXY TCP6 2001:db8::7 2001:db8::2 40000 25\r\n".utf8)
        #expect(ProxyHeader.parse(six) == .complete(client: IPAddress("2001:db8::7"), length: six.count))
        let unknown = Array("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n".utf8)
        #expect(ProxyHeader.parse(unknown) == .complete(client: nil, length: unknown.count))
    }

    @Test("v2 TCP over IPv4 and IPv6 name the client; LOCAL (a health check) and other families name none")
    func version2() throws {
        #expect(ProxyHeader.parse(Self.version2IPv4) == .complete(client: IPAddress("203.0.113.7"), length: 28))
        var six = Self.signature + [0x21, 0x21, 0x00, 0x24]
        six += [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [7]
        six += [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [2] + [0x9C, 0x40, 0x00, 0x19]
        #expect(ProxyHeader.parse(six) == .complete(client: IPAddress("2001:db8::7"), length: 52))
        let local = Self.signature + [0x20, 0x00, 0x00, 0x00]
        #expect(ProxyHeader.parse(local) == .complete(client: nil, length: 16))
        let unix = Self.signature + [0x21, 0x31, 0x00, 0x04, 1, 2, 3, 4]
        #expect(ProxyHeader.parse(unix) == .complete(client: nil, length: 20))
        // TLVs after the addresses belong to the header.
        let withTLV = Array(Self.version2IPv4[..<14]) + [0x00, 0x11] + Array(Self.version2IPv4[16...]) + [0x04, 0x00, 0x02, 0xAB, 0xCD]
        #expect(ProxyHeader.parse(withTLV) == .complete(client: IPAddress("203.0.113.7"), length: 33))
    }

    @Test("fed one byte at a time, each header is incomplete until its last byte")
    func byteByByte() {
        for header in [Array("PROXY TCP4 192.0.2.1 192.0.2.2 1 2\r\n".utf8), Self.version2IPv4] {
            for end in 0..<header.count {
                #expect(ProxyHeader.parse(header[..<end]) == .incomplete, "at \(end)")
            }
            guard case .complete(_, let length) = ProxyHeader.parse(header) else {
                Issue.record("not complete")
                continue
            }
            #expect(length == header.count)
        }
    }

    @Test(
        "anything else is invalid",
        arguments: [
            "EHLO client.test\r\n", "PROXY TCP4 192.0.2.1 192.0.2.2 1 2\n", "PROXY TCP4 192.0.2.1 192.0.2.2 1\r\n",
            "PROXY TCP4 192.0.2.1 192.0.2.2 1 65536\r\n", "PROXY TCP4 192.0.2.1 192.0.2.2 01 2\r\n",
            "PROXY TCP4 192.0.2.1:9 192.0.2.2 1 2\r\n", "PROXY TCP4 [::1] 192.0.2.2 1 2\r\n",
            "PROXY TCP4 example.com 192.0.2.2 1 2\r\n", "PROXY  TCP4 192.0.2.1 192.0.2.2 1 2\r\n",
            "proxy TCP4 192.0.2.1 192.0.2.2 1 2\r\n", "PROXY TCP4 192.0.2.1 192.0.2.2 1 2 \r\n",
        ])
    func invalid(_ text: String) {
        #expect(ProxyHeader.parse(Array(text.utf8)) == .invalid)
    }

    @Test("a v1 line longer than 107 bytes, a v2 of another version or command, or too long an address block is invalid")
    func limits() {
        #expect(ProxyHeader.parse(Array(("PROXY TCP4 " + String(repeating: "1", count: 100)).utf8)) == .invalid)
        #expect(ProxyHeader.parse(Self.signature + [0x11, 0x11, 0x00, 0x0C]) == .invalid)
        #expect(ProxyHeader.parse(Self.signature + [0x22, 0x11, 0x00, 0x0C]) == .invalid)
        #expect(ProxyHeader.parse(Self.signature + [0x21, 0x11, 0x02, 0x01]) == .invalid)
        #expect(ProxyHeader.parse(Self.signature + [0x21, 0x11, 0x00, 0x04, 1, 2, 3, 4]) == .invalid)
        #expect(ProxyHeader.parse(Array(Self.signature[..<5]) + [0x00]) == .invalid)
    }
}
