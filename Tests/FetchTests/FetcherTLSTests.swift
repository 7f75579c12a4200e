import Foundation
import OutboundSocket
import PosternTestSupport
import Testing

@testable import Fetch

@Suite("Fetcher over TLS", .serialized, .enabled(if: TLSOrigin.opensslPath != nil, "needs the openssl command"))
struct FetcherTLSTests {
    private func fetcher(roots: String?, total: Duration = .seconds(5)) throws -> Fetcher {
        var configuration = FetchConfiguration(policy: AddressPolicy(allowedHosts: ["localhost", "127.0.0.1"]))
        configuration.trustedRootsPEMFile = roots
        configuration.totalTimeout = total
        return try Fetcher(configuration: configuration, resolver: NoLookups())
    }

    @Test("a chain to a trusted root and a matching host name succeed; SNI and Host carry the name")
    func verified() async throws {
        let origin = try TLSOrigin()
        try origin.serve("hash.txt", body: "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA")
        let response = try await fetcher(roots: origin.caFile).fetch("https://localhost:\(origin.port)/hash.txt")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA")
    }

    @Test("a certificate without the requested name is refused")
    func wrongName() async throws {
        let origin = try TLSOrigin()
        try origin.serve("hash.txt", body: "x")
        // The leaf names DNS:localhost only; 127.0.0.1 is checked as an IP SAN and is absent.
        await #expect(throws: FetchError.tlsFailed) {
            try await fetcher(roots: origin.caFile).fetch("https://127.0.0.1:\(origin.port)/hash.txt")
        }
    }

    @Test("a chain to a root outside the trust store is refused (system CA store by default)")
    func untrusted() async throws {
        let origin = try TLSOrigin()
        try origin.serve("hash.txt", body: "x")
        await #expect(throws: FetchError.tlsFailed) {
            try await fetcher(roots: nil).fetch("https://localhost:\(origin.port)/hash.txt")
        }
    }

    @Test("plain HTTP spoken to a TLS port, and TLS to a plain port, fail cleanly")
    func mismatchedProtocols() async throws {
        let origin = try TLSOrigin()
        let plain = try TestOrigin()
        defer { plain.stop() }
        plain.set("/h", body: "plain")
        let fetcher = try fetcher(roots: origin.caFile, total: .seconds(1))
        await #expect(throws: FetchError.self) { try await fetcher.fetch("http://localhost:\(origin.port)/hash.txt") }
        // The plain origin waits for a blank line that a ClientHello never contains: the deadline ends it.
        await #expect(throws: FetchError.timedOut) { try await fetcher.fetch("https://localhost:\(plain.port)/h") }
    }
}
