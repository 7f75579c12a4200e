import ComputePool
import Fetch
import MailAuth
import MailDelivery
import MailTransfer
import OutboundSocket
import PosternTestSupport
import SMTPClient
import Synchronization
import Testing

private let pool = WorkerPool(threads: 2, queueLimit: 16, name: "test-fallback")

/// The domains that took mail over TLS, in memory; `failing` makes every read throw.
final class MemoryTLSHistory: SecureDomainHistory {
    struct Unreadable: Error {}
    private let domains = Mutex<Set<String>>([])
    let failing: Bool

    init(_ domains: Set<String> = [], failing: Bool = false) {
        self.domains.withLock { $0 = domains }
        self.failing = failing
    }

    var known: Set<String> { domains.withLock { $0 } }

    func wasDeliveredOverTLS(_ domain: String) async throws -> Bool {
        if failing { throw Unreadable() }
        return domains.withLock { $0.contains(domain) }
    }

    func recordDeliveryOverTLS(_ domain: String, now: Int64) async throws {
        _ = domains.withLock { $0.insert(domain) }
    }
}

/// `far.test`'s one MX, `mx.far.test`, on 127.0.0.1.
private let farDNS = TableDNS(
    mxRecords: ["far.test": ["mx.far.test"]], addressRecords: ["mx.far.test": [[127, 0, 0, 1]]])

private func transport(
    port: Int, history: (any SecureDomainHistory)?, tls: SMTPTLSPolicy = .opportunistic, dns: TableDNS = farDNS
) throws -> DirectTransport {
    var configuration = OutboundConfiguration()
    configuration.mode = .direct
    configuration.smtpPort = port
    configuration.tls = tls
    return DirectTransport(
        hostname: "out.postern.test", configuration: configuration, resolver: MXResolver(dns: dns), mtaSTS: nil,
        signers: nil,
        driver: try SMTPClientDriver(
            policy: AddressPolicy(allowPrivate: true), resolver: NoLookups(), connectTimeout: .seconds(5)),
        pool: pool, timeouts: SMTPClientTimeouts(all: .seconds(10)), now: { 1_795_602_199 }, secureDomains: history)
}

private func batch(_ recipients: [String]) -> OutboundBatch {
    OutboundBatch(
        messageID: "Q9", sender: "agent@agents.test", domain: "far.test", recipients: recipients,
        content: Array("From: agent@agents.test\r\nSubject: fallback\r\n\r\nhello\r\n".utf8), attempts: 0)
}

/// Opportunistic TLS's plaintext fallback and its ratchet against a receiver whose STARTTLS handshake fails.
@Suite("Plaintext fallback after a failed STARTTLS, and the ratchet", .serialized)
struct PlaintextFallbackTests {
    @Test("a domain never seen over TLS: the failed handshake is retried in the clear on the same attempt")
    func fallsBack() async throws {
        let mx = try ScriptedMX()
        defer { mx.stop() }
        let history = MemoryTLSHistory()
        let outcomes = await (try transport(port: mx.port, history: history)).deliver(batch(["a@far.test"]))
        #expect(outcomes.map(\.status.name) == ["delivered"])
        #expect(mx.connections.count == 2)
        #expect(mx.connections.first?.contains("STARTTLS") == true)
        #expect(mx.connections.last?.contains("STARTTLS") == false)
        #expect(mx.messages == [["a@far.test"]])
        // Delivered in the clear: nothing to note.
        #expect(history.known.isEmpty)
    }

    @Test("a domain that took mail over TLS before: deferred, one connection, nothing in the clear")
    func ratchet() async throws {
        let mx = try ScriptedMX()
        defer { mx.stop() }
        let outcomes = await (try transport(port: mx.port, history: MemoryTLSHistory(["far.test"]))).deliver(
            batch(["a@far.test"]))
        #expect(outcomes.map(\.status.name) == ["deferred"])
        #expect(outcomes.first?.reply?.description.hasPrefix("451 4.7.0 TLS with mx.far.test") == true)
        #expect(mx.connections.count == 1)
        #expect(mx.messages.isEmpty)
    }

    @Test(
        "a domain that took mail over TLS: no STARTTLS, a 454 to it or a broken handshake defers until tls-reset",
        arguments: ScriptedMX.StartTLS.allCases)
    func ratchetHolds(_ startTLS: ScriptedMX.StartTLS) async throws {
        let mx = try ScriptedMX(startTLS: startTLS)
        defer { mx.stop() }
        let history = MemoryTLSHistory(["far.test"])
        let outcomes = await (try transport(port: mx.port, history: history)).deliver(batch(["a@far.test"]))
        #expect(outcomes.map(\.status.name) == ["deferred"])
        #expect(outcomes.first?.reply?.code == 451 || outcomes.first?.reply?.code == 454)
        #expect(mx.connections.count == 1)
        #expect(mx.connections.first?.contains("MAIL") == false)
        #expect(mx.messages.isEmpty)
        #expect(history.known == ["far.test"])
        // `postern mail tls-reset far.test` forgets the domain: the same receiver then takes it in the clear.
        let reset = await (try transport(port: mx.port, history: MemoryTLSHistory())).deliver(batch(["a@far.test"]))
        #expect(reset.map(\.status.name) == ["delivered"])
        #expect(mx.messages == [["a@far.test"]])
    }

    @Test("no fallback when the history cannot be read, without a history, or when TLS is required")
    func noFallback() async throws {
        let mx = try ScriptedMX()
        defer { mx.stop() }
        let unreadable = await (try transport(port: mx.port, history: MemoryTLSHistory(failing: true))).deliver(
            batch(["a@far.test"]))
        let none = await (try transport(port: mx.port, history: nil)).deliver(batch(["a@far.test"]))
        let required = await (try transport(port: mx.port, history: MemoryTLSHistory(), tls: .required)).deliver(
            batch(["a@far.test"]))
        #expect([unreadable, none, required].map { $0.map(\.status.name) } == [["deferred"], ["deferred"], ["deferred"]])
        #expect(mx.connections.count == 3)
        #expect(mx.messages.isEmpty)
    }

    @Test("a delivery over TLS is noted for the domain")
    func notesTLS() async throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let mx = try LoopbackMX(tls: try certificate.context())
        let history = MemoryTLSHistory()
        let outcomes = await (try transport(port: mx.port, history: history)).deliver(batch(["a@far.test"]))
        #expect(outcomes.map(\.status.name) == ["delivered"])
        #expect(history.known == ["far.test"])
        await mx.stop()
    }

    @Test("connection reuse: three batches for one domain over one connection, RSET between the messages")
    func reuse() async throws {
        let mx = try ScriptedMX(startTLS: .absent)
        defer { mx.stop() }
        var second = batch(["b@far.test", "c@far.test"])
        second.messageID = "Q10"
        var third = batch(["d@far.test"])
        third.messageID = "Q11"
        let outcomes = await (try transport(port: mx.port, history: nil)).deliver(
            [batch(["a@far.test"]), second, third])
        #expect(outcomes.map { $0.map(\.status.name) } == [["delivered"], ["delivered", "delivered"], ["delivered"]])
        #expect(mx.connections.count == 1)
        #expect(mx.connections.first?.filter { $0 == "MAIL" }.count == 3)
        #expect(mx.connections.first?.filter { $0 == "RSET" }.count == 2)
        #expect(mx.messages == [["a@far.test"], ["b@far.test", "c@far.test"], ["d@far.test"]])
    }

    @Test("batches for two domains handed over together go domain by domain, each to its own MX lookup")
    func twoDomains() async throws {
        let mx = try ScriptedMX(startTLS: .absent)
        defer { mx.stop() }
        var dns = farDNS
        dns.mxRecords["near.test"] = ["mx.far.test"]
        var near = batch(["n@near.test"])
        near.domain = "near.test"
        near.messageID = "Q12"
        let outcomes = await (try transport(port: mx.port, history: nil, dns: dns)).deliver(
            [batch(["a@far.test"]), near, batch(["b@far.test"])])
        #expect(outcomes.map { $0.map(\.recipient) } == [["a@far.test"], ["n@near.test"], ["b@far.test"]])
        #expect(outcomes.allSatisfy { $0.map(\.status.name) == ["delivered"] })
        #expect(mx.connections.count == 2)
    }
}
