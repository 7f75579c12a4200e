import ComputePool
import PosternTestSupport
import Synchronization
import Testing

@testable import DNS

/// The resolver against a loopback server that answers as the test says: over UDP, truncated then over TCP,
/// with a stray datagram first, or not at all.
@Suite("DNS resolver over loopback", .timeLimit(.minutes(1)))
struct DNSResolverTests {
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
        let answer = try await DNSResolver(server: DNSServerAddress(server.address)!).query("Example.com", .txt)
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
        let answer = try await DNSResolver(server: DNSServerAddress(server.address)!).query("example.com", .txt)
        #expect(answer == .records([.txt("v=1")]))
        #expect(server.tcpQueries.count == 1)
    }

    @Test("a server that never answers is a timeout, not an answer")
    func silentServer() async throws {
        let server = LoopbackDNSServer(udpReplies: { _ in [] })
        defer { server.stop() }
        await #expect(throws: DNSError.timeout) {
            try await DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(200)).query("example.com", .mx)
        }
    }

    @Test("past its threads and their queue a lookup fails at once as overloaded, and asks nothing")
    func overloaded() async throws {
        let server = LoopbackDNSServer(udpReplies: { _ in [] })
        defer { server.stop() }
        let resolver = DNSResolver(
            server: DNSServerAddress(server.address)!, timeout: .seconds(2),
            threads: WorkerPool(threads: 1, queueLimit: 0))
        let first = Task { try await resolver.query("example.com", .mx) }
        // The one thread is busy once the server has the first question.
        while server.udpQueries.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: DNSError.overloaded) { try await resolver.query("example.org", .mx) }
        await #expect(throws: DNSError.timeout) { try await first.value }
        #expect(server.udpQueries.count == 1)
    }

    @Test("resolvers share their owner's threads; once it shuts them down, lookups fail at once without asking")
    func ownerShutsThreadsDown() async throws {
        let server = LoopbackDNSServer(udpReplies: { query in [Self.reply(to: query, flags: 0x8180)] })
        defer { server.stop() }
        let threads = DNSResolver.threadPool()
        let first = DNSResolver(server: DNSServerAddress(server.address)!, threads: threads)
        let second = DNSResolver(server: DNSServerAddress(server.address)!, timeout: .seconds(1), threads: threads)
        #expect(try await first.query("example.com", .txt) == .records([.txt("v=1")]))
        #expect(try await second.query("example.org", .txt) == .records([.txt("v=1")]))
        #expect(threads.startedThreads >= 1)
        threads.shutdown()
        await #expect(throws: DNSError.overloaded) { try await first.query("example.net", .txt) }
        #expect(server.udpQueries.count == 2)
    }

    /// `message` with the letters of its question name (from offset 12) lower-cased, as a forger who does not know
    /// the case asked would send it.
    static func lowerCasingQuestion(_ message: [UInt8]) -> [UInt8] {
        var message = message
        var position = 12
        while position < message.count, message[position] != 0 {
            let count = Int(message[position])
            for index in position + 1...position + count where (65...90).contains(message[index]) {
                message[index] += 0x20
            }
            position += 1 + count
        }
        return message
    }

    @Test("0x20: a response whose question is not in the exact case asked is dropped as a spoof")
    func caseMismatchDropped() async throws {
        let name = "abcdefghijklmnopqrstuvwxyz.example.com"
        let server = LoopbackDNSServer(udpReplies: { query in
            [Self.lowerCasingQuestion(Self.reply(to: query, flags: 0x8180))]
        })
        defer { server.stop() }
        await #expect(throws: DNSError.timeout) {
            try await DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(300))
                .query(name, .txt)
        }
    }

    @Test("0x20: each query's letters get a random case; the answer echoing it is taken after a forged one")
    func randomCase() async throws {
        let name = "abcdefghijklmnopqrstuvwxyz.example.com"
        let asked = Mutex<[String]>([])
        let server = LoopbackDNSServer(udpReplies: { query in
            let question = query[13..<(13 + 26)]
            asked.withLock { $0.append(String(decoding: question, as: UTF8.self)) }
            let reply = Self.reply(to: query, flags: 0x8180)
            return [Self.lowerCasingQuestion(reply), reply]
        })
        defer { server.stop() }
        let resolver = DNSResolver(server: DNSServerAddress(server.address)!)
        for _ in 0..<3 {
            #expect(try await resolver.query(name, .txt) == .records([.txt("v=1")]))
        }
        let names = asked.withLock { $0 }
        #expect(names.count == 3)
        // 26 letters each: the chance that a random case repeats, or is all lower-case, is 2^-26.
        #expect(Set(names).count == 3)
        #expect(names.allSatisfy { $0.lowercased() == "abcdefghijklmnopqrstuvwxyz" && $0 != $0.lowercased() })
    }
}
