import ComputePool
import ConfigurationReading
import DKIMKeys
import Foundation
import Logging
import MailDelivery
import OutboundQueue
import PosternTestSupport
import Synchronization
import Testing

@testable import PosternApp

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 66.8: every name the server looks up goes to `POSTERN_DNS_RESOLVER`. Each outbound request the composition
/// root builds is sent to a `.test` name that only the test's DNS server knows (the machine's resolver cannot answer it),
/// so each one that arrives was looked up where it was told.
@Suite("Every outbound lookup goes through POSTERN_DNS_RESOLVER", .serialized, .timeLimit(.minutes(1)))
struct OutboundResolverTests {
    @Test("webhooks and remote hashes, client metadata, sign-in discovery, MTA-STS policies and the relay host")
    func everyKind() async throws {
        let zone = LoopbackDNSServer.Zone()
        for name in ["hook.test", "cimd.test", "idp.test", "sts.test", "relay.test"] {
            zone.set(name, 1, .addresses(["127.0.0.1"]))
        }
        let dns = LoopbackDNSServer(zone: zone.answer)
        defer { dns.stop() }
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/x", body: "reached")
        let relay = try RefusingSMTP()
        defer { relay.stop() }
        let values = [
            "POSTERN_DNS_RESOLVER": "127.0.0.1:\(dns.port)", "POSTERN_OUTBOUND_ALLOW_PRIVATE": "on",
            "POSTERN_OAUTH_CIMD_ALLOW_HOSTS": "cimd.test", "POSTERN_SMTP_HOSTNAME": "out.postern.test",
            "POSTERN_OUTBOUND_DELIVERY": "relay", "POSTERN_RELAY_URL": "smtp://relay.test:\(relay.port)",
            "POSTERN_OIDC_PROVIDERS": "idp", "POSTERN_OIDC_IDP_ISSUER": "http://idp.test:\(origin.port)",
            "POSTERN_OIDC_IDP_CLIENT_ID": "postern", "POSTERN_OIDC_IDP_CLIENT_SECRET": "secret",
            "POSTERN_OIDC_IDP_ALLOW_PRIVATE_NETWORK": "on",
        ]
        let c = try PosternConfiguration(config: ConfigurationReader { values[$0] })
        let threads = WorkerPool(threads: 1)
        defer { threads.shutdown() }
        let resolver = Surfaces.resolver(c, threads: threads)
        let reached = Array("reached".utf8)

        // Webhooks and remote hashes: the server's one fetcher.
        let shared = try Surfaces.fetcher(c, resolver: resolver)
        defer { shared.shutdown() }
        #expect(try await shared.fetch("http://hook.test:\(origin.port)/x").body == reached)
        // OAuth client ID metadata documents.
        let metadata = try #require(try Surfaces.clientDocumentFetcher(c, resolver: resolver))
        defer { metadata.shutdown() }
        #expect(try await metadata.fetch("http://cimd.test:\(origin.port)/x").body == reached)
        // A sign-in provider's discovery document (its keys and token endpoint go through the same fetcher).
        let test = try StorageBackend.sqlite.makeDatabase()
        let base = "https://postern.test"
        let flow = try #require(
            try Surfaces.signInFlow(
                c, identity: PublicIdentity(baseURL: base, issuer: base), database: test.database, resolver: resolver,
                clock: { 1_795_600_000 }))
        _ = await flow.discoveryStates()
        #expect(origin.receivedRequests.contains { $0.hasPrefix("GET /.well-known/openid-configuration ") })
        // MTA-STS policies and the SMTP relay: the outbound runtime.
        let outbound = try #require(
            try Surfaces.outboundRuntime(
                c, dkimKeys: try DKIMKeyStore(database: test.database, sealingSecret: nil, clock: { 1_795_600_000 }),
                secureDomains: OutboundQueue(database: test.database), resolver: resolver, now: { 1_795_600_000 },
                logger: Logger(label: "postern.test")))
        defer {
            outbound.threads.shutdown()
            outbound.policyFetcher.shutdown()
        }
        #expect(try await outbound.policyFetcher.fetch("http://sts.test:\(origin.port)/x").body == reached)
        let outcomes = await outbound.transport.deliver(
            OutboundBatch(
                messageID: "Q1", sender: "agent@out.postern.test", domain: "far.test", recipients: ["a@far.test"],
                content: Array("From: agent@out.postern.test\r\nSubject: hi\r\n\r\nhi\r\n".utf8), attempts: 0))
        #expect(relay.connections == 1)
        #expect(outcomes.map(\.status.name) == ["deferred"])
        #expect(dns.udpQueries.count >= 5)
    }
}

/// An SMTP server on 127.0.0.1 that greets every connection with `421` and closes it, counting them.
final class RefusingSMTP: Sendable {
    let port: Int
    private let listener: Int32
    private let accepted = Atomic<Int>(0)

    init() throws {
        (listener, port) = try LoopbackListener.open()
        Thread.detachNewThread { [self] in serve() }
    }

    /// Greets and closes each connection until the listener is shut down.
    private func serve() {
        var client = accept(listener, nil, nil)
        while client >= 0 {
            accepted.add(1, ordering: .relaxed)
            let greeting = Array("421 4.3.2 not now\r\n".utf8)
            _ = greeting.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
            client = accept(listener, nil, nil)
        }
    }

    var connections: Int { accepted.load(ordering: .relaxed) }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
