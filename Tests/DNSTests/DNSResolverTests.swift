import Foundation
import Glibc
import Synchronization
import Testing

@testable import DNS

/// The resolver against a loopback server that answers as the test says: over UDP, truncated then over TCP,
/// with a stray datagram first, or not at all.
@Suite("DNS resolver over loopback")
struct DNSResolverTests {
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// A UDP socket and a TCP listener on one loopback port; `answer` builds each reply from the query's bytes.
    final class LoopbackDNSServer: @unchecked Sendable {
        let udp: Int32
        let tcp: Int32
        let port: UInt16
        let tcpQueries = Counter()

        init(udpReplies: @escaping @Sendable ([UInt8]) -> [[UInt8]], tcpReply: @escaping @Sendable ([UInt8]) -> [UInt8]) {
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    _ = bind(udp, $0, length)
                    _ = getsockname(udp, $0, &length)
                }
            }
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var one: Int32 = 1
            setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    precondition(bind(tcp, $0, length) == 0, "TCP bind to the UDP port: errno \(errno)")
                }
            }
            listen(tcp, 4)
            (self.udp, self.tcp, port) = (udp, tcp, UInt16(bigEndian: address.sin_port))
            let queries = tcpQueries
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 512)
                var peer = sockaddr_storage()
                var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
                while true {
                    let count = withUnsafeMutablePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(udp, &buffer, buffer.count, 0, $0, &peerLength)
                        }
                    }
                    guard count > 0 else { return }
                    for reply in udpReplies(Array(buffer[..<count])) {
                        _ = withUnsafePointer(to: &peer) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                sendto(udp, reply, reply.count, 0, $0, peerLength)
                            }
                        }
                    }
                }
            }
            Thread.detachNewThread {
                while true {
                    let client = accept(tcp, nil, nil)
                    guard client >= 0 else { return }
                    var length = [UInt8](repeating: 0, count: 2)
                    guard recv(client, &length, 2, Int32(MSG_WAITALL)) == 2 else { close(client); continue }
                    var query = [UInt8](repeating: 0, count: Int(length[0]) << 8 | Int(length[1]))
                    _ = recv(client, &query, query.count, Int32(MSG_WAITALL))
                    queries.add()
                    let reply = tcpReply(query)
                    _ = send(client, [UInt8(reply.count >> 8), UInt8(reply.count & 0xFF)] + reply, reply.count + 2, 0)
                    close(client)
                }
            }
        }

        var address: DNSServerAddress { DNSServerAddress("127.0.0.1:\(port)")! }

        func stop() {
            shutdown(udp, Int32(SHUT_RDWR))
            shutdown(tcp, Int32(SHUT_RDWR))
            close(udp)
            close(tcp)
        }
    }

    /// The reply to `query` with `flags` and one TXT record "v=1".
    static func reply(to query: [UInt8], flags: UInt16) -> [UInt8] {
        var reply = query
        reply[2] = UInt8(flags >> 8)
        reply[3] = UInt8(flags & 0xFF)
        reply[7] = 1
        let data: [UInt8] = [3] + Array("v=1".utf8)
        return reply + [0xC0, 12, 0, 16, 0, 1, 0, 0, 0, 60, 0, UInt8(data.count)] + data
    }

    @Test("an answer over UDP; a stray datagram with another id before it is ignored")
    func udpAnswer() async throws {
        let server = LoopbackDNSServer(
            udpReplies: { query in
                var stray = Self.reply(to: query, flags: 0x8180)
                stray[1] ^= 0xFF
                return [stray, Self.reply(to: query, flags: 0x8180)]
            }, tcpReply: { _ in [] })
        defer { server.stop() }
        let answer = try await DNSResolver(server: server.address).query("Example.com", .txt)
        #expect(answer == .records([.txt("v=1")]))
        #expect(server.tcpQueries.count == 0)
    }

    @Test("a truncated UDP answer is asked again over TCP")
    func tcpFallback() async throws {
        let server = LoopbackDNSServer(
            udpReplies: { query in
                var cut = query
                cut[2] = 0x83  // QR, TC, RD
                cut[3] = 0x80
                return [cut]
            }, tcpReply: { Self.reply(to: $0, flags: 0x8180) })
        defer { server.stop() }
        let answer = try await DNSResolver(server: server.address).query("example.com", .txt)
        #expect(answer == .records([.txt("v=1")]))
        #expect(server.tcpQueries.count == 1)
    }

    @Test("a server that never answers is a timeout, not an answer")
    func silentServer() async throws {
        let server = LoopbackDNSServer(udpReplies: { _ in [] }, tcpReply: { _ in [] })
        defer { server.stop() }
        await #expect(throws: DNSError.timeout) {
            try await DNSResolver(server: server.address, timeout: .milliseconds(200)).query("example.com", .mx)
        }
    }
}
