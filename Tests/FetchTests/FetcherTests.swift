import ComputePool
import DNS
import Foundation
import OutboundSocket
import PosternTestSupport
import Testing

@testable import Fetch

@Suite("Fetcher against a local origin", .timeLimit(.minutes(1)))
struct FetcherTests {
    private func fetcher(
        allowPrivate: Bool = true, allowedHosts: [String] = [], total: Duration = .seconds(5), maxRedirects: Int = 3
    ) throws -> Fetcher {
        var configuration = FetchConfiguration(
            policy: AddressPolicy(allowPrivate: allowPrivate, allowedHosts: allowedHosts))
        configuration.totalTimeout = total
        configuration.maxRedirects = maxRedirects
        return try Fetcher(configuration: configuration, resolver: NoLookups())
    }

    @Test("with the default policy every private spelling is refused without a connection attempt")
    func refusedWithoutConnecting() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/h", body: "should never be served")
        let port = origin.port
        let fetcher = try Fetcher(resolver: NoLookups())
        let urls = [
            "http://127.0.0.1:\(port)/h", "http://2130706433:\(port)/h", "http://0x7f000001:\(port)/h",
            "http://0177.0.0.1:\(port)/h", "http://127.1:\(port)/h", "http://0x7f.1:\(port)/h",
            "http://127.0.0.1.:\(port)/h", "http://good.example@127.0.0.1:\(port)/h",
            "http://good.example:pw@0x7F000001:\(port)/h", "http://[::1]:\(port)/h",
            "http://[::ffff:127.0.0.1]:\(port)/h", "http://[::ffff:7f00:1]:\(port)/h",
            "http://[64:ff9b::7f00:1]:\(port)/h", "http://[::127.0.0.1]:\(port)/h", "http://localhost:\(port)/h",
            "http://LOCALHOST.:\(port)/h", "http://api.localhost:\(port)/h", "https://127.0.0.1:\(port)/h",
            "http://10.0.0.1/h", "http://172.16.5.4/h", "http://192.168.1.1/h",
            "http://169.254.169.254/latest/meta-data/",
            "http://0xa9fea9fe/", "http://[fe80::1]/", "http://100.64.0.1/", "http://0.0.0.0/", "http://0/",
            "http://224.0.0.1/", "http://255.255.255.255/", "http://[fc00::1]/", "http://[fd00:ec2::254]/",
            "http://[::]/", "http://[ff02::1]/", "http://[64:ff9b::a9fe:a9fe]/",
        ]
        for url in urls {
            await expectNotAllowed("\(url)") { try await fetcher.fetch(url) }
        }
        #expect(fetcher.connectionAttempts == 0)
        #expect(origin.acceptedConnections == 0)
    }

    @Test("a 200 body comes back; Host carries the name while the socket goes to the vetted address")
    func ok() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/hash.txt", body: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA\n")
        let response = try await fetcher().fetch(origin.url("/hash.txt"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA\n")
        let named = try await fetcher(allowPrivate: false, allowedHosts: ["localhost"])
            .fetch("http://user:secret@localhost:\(origin.port)/hash.txt")
        #expect(named.status == 200)
        let request = try #require(origin.receivedRequests.last)
        #expect(request.hasPrefix("GET /hash.txt HTTP/1.1\r\n"))
        #expect(request.contains("\r\nHost: localhost:\(origin.port)\r\n"))
        #expect(!request.lowercased().contains("authorization"))
    }

    @Test("non-2xx, oversized and refused connections fail with their own errors")
    func failures() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/missing", status: 404, body: "no")
        origin.set("/error", status: 500, body: "no")
        origin.set("/big", body: String(repeating: "a", count: 4097))
        origin.set("/exact", body: String(repeating: "a", count: 4096))
        origin.set(
            "/chunked",
            TestOrigin.Reply(
                bytes: Array(
                    ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + String(repeating: "800\r\n" + String(repeating: "b", count: 2048) + "\r\n", count: 3)
                        + "0\r\n\r\n").utf8)))
        origin.set("/garbage", TestOrigin.Reply(bytes: Array("SSH-2.0-OpenSSH_9.6\r\n\r\n".utf8)))
        let fetcher = try fetcher()
        await #expect(throws: FetchError.badStatus(404)) { try await fetcher.fetch(origin.url("/missing")) }
        await #expect(throws: FetchError.badStatus(500)) { try await fetcher.fetch(origin.url("/error")) }
        await #expect(throws: FetchError.bodyTooLarge) { try await fetcher.fetch(origin.url("/big")) }
        await #expect(throws: FetchError.bodyTooLarge) { try await fetcher.fetch(origin.url("/chunked")) }
        await #expect(throws: FetchError.malformedResponse) { try await fetcher.fetch(origin.url("/garbage")) }
        #expect(try await fetcher.fetch(origin.url("/exact")).body.count == 4096)
        let closed = try TestOrigin()
        closed.stop()
        await #expect(throws: FetchError.connectFailed) { try await fetcher.fetch(closed.url("/")) }
        await #expect(throws: FetchError.invalidURL) { try await fetcher.fetch("ftp://127.0.0.1/") }
    }

    @Test("up to 3 redirects are followed; a 4th is refused")
    func redirects() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.redirect("/r1", to: "/r2", status: 301)
        origin.redirect("/r2", to: "r3", status: 307)
        origin.redirect("/r3", to: origin.url("/final"), status: 308)
        origin.redirect("/r0", to: "/r1", status: 303)
        origin.set("/final", body: "done")
        let fetcher = try fetcher()
        let response = try await fetcher.fetch(origin.url("/r1"))
        #expect(response.body == Array("done".utf8))
        #expect(response.redirects == 3)
        await #expect(throws: FetchError.tooManyRedirects) { try await fetcher.fetch(origin.url("/r0")) }
        origin.redirect("/loop", to: "/loop")
        await #expect(throws: FetchError.tooManyRedirects) { try await fetcher.fetch(origin.url("/loop")) }
    }

    @Test("a redirect to the metadata address is refused, even with private addresses allowed")
    func redirectToMetadata() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.redirect("/meta", to: "http://169.254.169.254/latest/meta-data/")
        origin.redirect("/meta-hex", to: "http://0xa9fea9fe/")
        origin.redirect("/meta-v6", to: "http://[::ffff:169.254.169.254]/")
        origin.redirect("/loopback", to: "http://127.0.0.1:\(origin.port)/ok")
        origin.set("/ok", body: "ok")
        for fetcher in [try fetcher(allowPrivate: true), try fetcher(allowPrivate: false, allowedHosts: ["127.0.0.1"])]
        {
            for path in ["/meta", "/meta-hex", "/meta-v6"] {
                await expectNotAllowed { try await fetcher.fetch(origin.url(path)) }
            }
        }
        // Allowed by name only: a redirect from the allowed name to the loopback literal is vetted again.
        let named = try fetcher(allowPrivate: false, allowedHosts: ["localhost"])
        await expectNotAllowed {
            try await named.fetch("http://localhost:\(origin.port)/loopback")
        }
        #expect(origin.acceptedConnections == 7)
    }

    @Test("a slow origin is cut at the configured deadline")
    func slowOrigin() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/stall", body: "late", delay: 10)
        var trickled = TestOrigin.Reply(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8))
        trickled.trickle = 0.2
        origin.set("/trickle", trickled)
        let fetcher = try fetcher(total: .milliseconds(600))
        for path in ["/stall", "/trickle"] {
            // fetchBlocking: measures the fetcher itself, not how long the test task waits to be resumed
            // while other suites keep the cooperative threads busy.
            let start = Date()
            #expect(throws: FetchError.timedOut) { try fetcher.fetchBlocking(origin.url(path)) }
            let elapsed = Date().timeIntervalSince(start)
            // Without the deadline these would take 10 s and 20 s: the upper bound tells the two apart, with room
            // for a machine whose cores other builds share, not how fast.
            #expect(elapsed >= 0.55 && elapsed < 8, "\(path): \(elapsed)")
        }
    }

    @Test("the default whole-fetch deadline is 5 seconds")
    func defaultDeadline() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        var trickled = TestOrigin.Reply(bytes: Array(repeating: UInt8(ascii: "X"), count: 1000))
        trickled.trickle = 0.2
        origin.set("/slow", trickled)
        let fetcher = try Fetcher(
            configuration: FetchConfiguration(policy: AddressPolicy(allowPrivate: true)), resolver: NoLookups())
        #expect(fetcher.configuration.totalTimeout == .seconds(5))
        #expect(fetcher.configuration.connectTimeout == .seconds(2))
        let start = Date()
        #expect(throws: FetchError.timedOut) { try fetcher.fetchBlocking(origin.url("/slow")) }
        let elapsed = Date().timeIntervalSince(start)
        // Without the deadline the trickle takes 200 s: the upper bound tells the two apart, not how fast.
        #expect(elapsed >= 4.9 && elapsed < 60, "\(elapsed)")
    }

    @Test("with no queue a fetch runs while a thread is free and is refused at once while none is")
    func overloaded() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/slow", body: "slow", delay: 1)
        origin.set("/fast", body: "fast")
        var configuration = FetchConfiguration(policy: AddressPolicy(allowPrivate: true))
        configuration.concurrentFetches = 1
        configuration.queueLimit = 0
        let fetcher = try Fetcher(configuration: configuration, resolver: NoLookups())
        // The queue limit counts fetches beyond the free threads: with the one thread free, a fetch runs.
        #expect(try await fetcher.fetch(origin.url("/fast")).body == Array("fast".utf8))
        let slow = Task { try await fetcher.fetch(origin.url("/slow")) }
        while origin.acceptedConnections < 2 { try await Task.sleep(for: .milliseconds(5)) }
        // The only thread is busy and nothing may wait: refused without a connection attempt.
        let start = ContinuousClock.now
        await #expect(throws: FetchError.overloaded) { try await fetcher.fetch(origin.url("/fast")) }
        #expect(ContinuousClock.now - start < .milliseconds(500))
        #expect(fetcher.connectionAttempts == 2)
        #expect(try await slow.value.body == Array("slow".utf8))
    }
}

/// A name only the test's own DNS server knows (`named.test`, 127.0.0.1), and a fetcher's resolver over that server:
/// the system's resolver knows nothing of it, so a fetch that reaches it looked it up where it was told.
@Suite("Fetcher with a resolved name", .timeLimit(.minutes(1)))
struct ResolvedNameTests {
    @Test("a name is looked up through the resolver given: loopback refused after it, reached only when allow-listed")
    func resolvedName() async throws {
        let zone = LoopbackDNSServer.Zone()
        zone.set("named.test", 1, .addresses(["127.0.0.1"]))
        let dns = LoopbackDNSServer(zone: zone.answer)
        defer { dns.stop() }
        let resolver = DNSResolver(
            server: try #require(DNSServerAddress("127.0.0.1:\(dns.port)")), threads: WorkerPool(threads: 1))
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/h", body: "named")
        let fetcher = try Fetcher(resolver: resolver)
        await expectNotAllowed { try await fetcher.fetch("http://named.test:\(origin.port)/h") }
        #expect(fetcher.connectionAttempts == 0)
        #expect(origin.acceptedConnections == 0)
        #expect(dns.udpQueries.count >= 1)
        let allowed = try Fetcher(
            configuration: FetchConfiguration(policy: AddressPolicy(allowedHosts: ["named.test"])), resolver: resolver)
        let response = try await allowed.fetch("http://NAMED.test:\(origin.port)/h")
        #expect(response.body == Array("named".utf8))
        #expect(allowed.connectionAttempts == 1)
        #expect(origin.receivedRequests.last?.contains("\r\nHost: named.test:\(origin.port)\r\n") == true)
        // A name the server does not know does not resolve: no fallback to the machine's resolver.
        await #expect(throws: FetchError.resolutionFailed) { try await allowed.fetch("http://localhost.test:1/") }
    }
}
