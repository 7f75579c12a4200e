import AuthCrypto
import ComputePool
import DKIMKeys
import DNS
import Fetch
import MailAuth
import MailDelivery
import MailTransfer
import OutboundSocket
import PosternTestSupport
import SMTPClient
import ConfigurationReading
import Storage
import Testing

private let pool = WorkerPool(threads: 2, queueLimit: 16, name: "test-mailtransfer")
private let now: Int64 = 1_795_602_199

/// The sender domain's keys, and the DNS records a receiver would read them from.
private let signer = DKIMSigner(
    domain: "agents.test",
    keys: [
        DKIMSigningKey(selector: "r1", rsa: try! RSAPrivateKey.generate()),
        DKIMSigningKey(selector: "e1", ed25519: try! Ed25519PrivateKey.generate()),
    ], now: { now })

private func publishedKeys() -> TableDNS {
    var records: [String: [String]] = [:]
    for key in signer.keys { records[key.txtRecordName(domain: "agents.test")] = [key.txtRecordValue] }
    return TableDNS(txtRecords: records)
}

private let submitted = Array(
    ("From: Agent <agent@agents.test>\r\nTo: alice@far.test, nobody@far.test\r\nBcc: carol@far.test\r\n"
        + "Subject: Outbound\r\n\r\nHello from an agent.\r\n").utf8)

private func batch(_ recipients: [String], domain: String = "far.test") -> OutboundBatch {
    OutboundBatch(
        messageID: "Q7", sender: "agent@agents.test", domain: domain, recipients: recipients, content: submitted,
        attempts: 0)
}

/// A loopback DNS server answering from `zone`, and the MailAuthDNS over Postern's stub resolver asking it.
private func dns(_ zone: LoopbackDNSServer.Zone) -> (LoopbackDNSServer, ResolverMailAuthDNS) {
    let server = LoopbackDNSServer(zone: zone.answer)
    let resolver = DNSResolver(server: DNSServerAddress(server.address)!, timeout: .seconds(2))
    return (server, ResolverMailAuthDNS(resolver: resolver))
}

private func directTransport(
    port: Int, dns: ResolverMailAuthDNS, tls: SMTPTLSPolicy = .opportunistic, mtaSTS: MTASTSPolicyCache? = nil,
    trust: String? = nil, signers: (any DKIMSignerSource)? = SignerTable(signers: ["agents.test": signer]),
    policy: AddressPolicy = AddressPolicy(allowPrivate: true)
) throws -> DirectTransport {
    var configuration = OutboundConfiguration()
    configuration.mode = .direct
    configuration.smtpPort = port
    configuration.tls = tls
    return DirectTransport(
        hostname: "out.postern.test", configuration: configuration, resolver: MXResolver(dns: dns), mtaSTS: mtaSTS,
        signers: signers,
        driver: try SMTPClientDriver(
            policy: policy, resolver: NoLookups(), trustedRootsPEMFile: trust, connectTimeout: .seconds(5)),
        pool: pool, timeouts: SMTPClientTimeouts(all: .seconds(20)), now: { now })
}

@Suite("Direct and relay transports against real SMTP servers on loopback", .serialized)
struct TransportTests {
    @Test("direct: MX by preference past a dead host; one session for every recipient; 250 and 550; Bcc gone; signed")
    func direct() async throws {
        let mx = try LoopbackMX()
        let zone = LoopbackDNSServer.Zone()
        // 127.0.0.2 listens on nothing: the connection is refused and the next MX is tried.
        zone.set("far.test", 15, .mx([.init(20, "localhost"), .init(10, "127.0.0.2")]))
        let (server, resolver) = dns(zone)
        defer { server.stop() }
        let transport = try directTransport(port: mx.port, dns: resolver)
        let outcomes = await transport.deliver(batch(["alice@far.test", "nobody@far.test", "carol@far.test"]))
        #expect(outcomes.map(\.status.name) == ["delivered", "failed", "delivered"])
        #expect(outcomes[0].reply?.description == "250 2.0.0 OK queued as Q1" && outcomes[0].remoteHost == "localhost")
        #expect(outcomes[1].reply?.description.hasPrefix("550 5.1.1") == true)
        let received = try #require(mx.sink.messages.first)
        #expect(mx.sink.messages.count == 1)
        #expect(received.envelope.mailFrom == "agent@agents.test")
        #expect(received.envelope.recipients == ["alice@far.test", "carol@far.test"])
        #expect(received.envelope.heloName == "out.postern.test")
        #expect(received.text.hasPrefix("Received: by out.postern.test (Postern) with HTTP id Q7;\r\n"))
        #expect(!received.text.contains("Bcc") && !received.text.contains("carol"))
        #expect(received.text.contains("\r\nMessage-ID: <Q7@out.postern.test>\r\n"))
        let verdicts = await DKIMVerifier(dns: publishedKeys(), now: { now }).verify(received.data)
        #expect(verdicts.map(\.result) == [.pass, .pass])
        await mx.stop()
    }

    @Test("direct: a 5xx from the first MX is final; the backup MX is not asked")
    func permanentIsFinal() async throws {
        let mx = try LoopbackMX()
        let zone = LoopbackDNSServer.Zone()
        // Were the backup asked, the refused connection would defer the recipient instead.
        zone.set("far.test", 15, .mx([.init(10, "localhost"), .init(20, "127.0.0.2")]))
        let (server, resolver) = dns(zone)
        defer { server.stop() }
        let outcomes = await (try directTransport(port: mx.port, dns: resolver)).deliver(batch(["nobody@far.test"]))
        #expect(outcomes.map(\.status.name) == ["failed"])
        #expect(outcomes[0].reply?.description.hasPrefix("550 5.1.1") == true)
        #expect(outcomes[0].remoteHost == "localhost")
        await mx.stop()
    }

    @Test("direct: a null MX and a domain that does not exist fail, SERVFAIL defers; nothing is connected")
    func dnsOutcomes() async throws {
        let mx = try LoopbackMX()
        let zone = LoopbackDNSServer.Zone()
        zone.set("null.test", 15, .mx([.init(0, "")]))
        zone.set("broken.test", 15, .serverFailure)
        let (server, resolver) = dns(zone)
        defer { server.stop() }
        let transport = try directTransport(port: mx.port, dns: resolver)
        let null = await transport.deliver(batch(["a@null.test", "b@null.test"], domain: "null.test"))
        #expect(null.map(\.status.name) == ["failed", "failed"])
        #expect(null[0].reply?.description == "556 5.1.10 null.test accepts no mail (null MX, RFC 7505)")
        let missing = await transport.deliver(batch(["a@missing.test"], domain: "missing.test"))
        #expect(missing.map(\.status.name) == ["failed"])
        #expect(missing[0].reply?.description.hasPrefix("550 5.1.2") == true)
        let broken = await transport.deliver(batch(["a@broken.test"], domain: "broken.test"))
        #expect(broken.map(\.status.name) == ["deferred"])
        #expect(broken[0].reply?.description.hasPrefix("451 4.4.3") == true)
        #expect(mx.sink.messages.isEmpty)
        await mx.stop()
    }

    @Test("direct: every MX unreachable defers with a reply in SMTP shape; no host answered")
    func unreachable() async throws {
        let zone = LoopbackDNSServer.Zone()
        zone.set("far.test", 15, .mx([.init(10, "127.0.0.2"), .init(20, "127.0.0.3")]))
        let (server, resolver) = dns(zone)
        defer { server.stop() }
        let outcomes = await (try directTransport(port: 9, dns: resolver)).deliver(batch(["alice@far.test"]))
        #expect(outcomes.map(\.status.name) == ["deferred"])
        #expect(outcomes[0].reply?.description.hasPrefix("451 4.4.1 cannot connect to 127.0.0.3") == true)
        #expect(outcomes[0].remoteHost == nil)
    }

    @Test("direct: a domain whose MX points at loopback gets nothing unless private addresses are allowed")
    func addressPolicy() async throws {
        let mx = try LoopbackMX()
        let zone = LoopbackDNSServer.Zone()
        zone.set("far.test", 15, .mx([.init(10, "localhost"), .init(20, "127.0.0.1")]))
        let (server, resolver) = dns(zone)
        defer { server.stop() }
        let outcomes = await (try directTransport(port: mx.port, dns: resolver, policy: AddressPolicy()))
            .deliver(batch(["alice@far.test"]))
        #expect(outcomes.map(\.status.name) == ["deferred"])
        #expect(
            outcomes[0].reply?.description == "451 4.4.1 cannot connect to 127.0.0.1: address not allowed (loopback)")
        #expect(mx.sink.messages.isEmpty)
        await mx.stop()
    }

    @Test("direct: keys that cannot be read defer the message rather than send it unsigned")
    func unsignable() async throws {
        let mx = try LoopbackMX()
        let zone = LoopbackDNSServer.Zone()
        zone.set("far.test", 15, .mx([.init(10, "localhost")]))
        let (server, resolver) = dns(zone)
        defer { server.stop() }
        let outcomes = await (try directTransport(port: mx.port, dns: resolver, signers: BrokenSigners()))
            .deliver(batch(["alice@far.test"]))
        #expect(outcomes.map(\.status.name) == ["deferred"])
        #expect(outcomes[0].reply?.description == "451 4.3.0 the message could not be DKIM-signed for agents.test")
        #expect(mx.sink.messages.isEmpty)
        await mx.stop()
    }

    @Test(
        "STARTTLS: required without it defers; MTA-STS enforce needs a listed MX and a verified certificate"
    )
    func tls() async throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let secure = try LoopbackMX(tls: try certificate.context())
        let plain = try LoopbackMX()
        let zone = LoopbackDNSServer.Zone()
        zone.set("far.test", 15, .mx([.init(10, "localhost")]))
        zone.set("_mta-sts.far.test", 16, .txt(["v=STSv1; id=20261125;"]))
        let (server, resolver) = dns(zone)
        defer { server.stop() }
        // Required, and the receiver offers no STARTTLS: nothing is sent.
        let refused = await (try directTransport(port: plain.port, dns: resolver, tls: .required)).deliver(
            batch(["a@far.test"]))
        #expect(refused.map(\.status.name) == ["deferred"])
        #expect(refused[0].reply?.description == "451 4.7.0 TLS required but STARTTLS not offered")
        #expect(plain.sink.messages.isEmpty)
        // Required, and offered (a self-signed certificate is fine without MTA-STS).
        let required = await (try directTransport(port: secure.port, dns: resolver, tls: .required)).deliver(
            batch(["a@far.test"]))
        #expect(required.map(\.status.name) == ["delivered"])
        // MTA-STS enforce, listing the MX: delivered when the certificate verifies against the trust roots...
        let policies = PolicyServer()
        policies.serve(
            "https://mta-sts.far.test/.well-known/mta-sts.txt",
            "version: STSv1\r\nmode: enforce\r\nmx: localhost\r\nmax_age: 86400\r\n")
        let sts = MTASTSPolicyCache(dns: resolver, fetcher: policies, now: { now })
        let verified = await
            (try directTransport(
                port: secure.port, dns: resolver, mtaSTS: sts, trust: certificate.certificateFile)).deliver(
                batch(["a@far.test"]))
        #expect(verified.map(\.status.name) == ["delivered"])
        // ... deferred when it does not (the system's roots), and never in the clear to a host without STARTTLS.
        let unverified = await (try directTransport(port: secure.port, dns: resolver, mtaSTS: sts)).deliver(
            batch(["a@far.test"]))
        #expect(unverified.map(\.status.name) == ["deferred"])
        #expect(unverified[0].reply?.description.hasPrefix("451 4.7.0 TLS with localhost") == true)
        let clear = await
            (try directTransport(port: plain.port, dns: resolver, mtaSTS: sts, trust: certificate.certificateFile))
            .deliver(batch(["a@far.test"]))
        #expect(clear.map(\.status.name) == ["deferred"])
        #expect(plain.sink.messages.isEmpty)
        // An enforce policy that lists none of the MX hosts: nothing is tried.
        policies.serve(
            "https://mta-sts.far.test/.well-known/mta-sts.txt",
            "version: STSv1\nmode: enforce\nmx: mx.elsewhere.test\nmax_age: 86400\n")
        zone.set("_mta-sts.far.test", 16, .txt(["v=STSv1; id=20261126;"]))
        let unlisted = await
            (try directTransport(
                port: secure.port, dns: resolver, mtaSTS: sts, trust: certificate.certificateFile)).deliver(
                batch(["a@far.test"]))
        #expect(unlisted.map(\.status.name) == ["deferred"])
        #expect(unlisted[0].reply?.description == "451 4.7.5 the MTA-STS policy of far.test lists none of its MX hosts")
        #expect(secure.sink.messages.count == 2)
        await secure.stop()
        await plain.stop()
    }

    @Test("relay without credentials: every batch to the one host, whatever the recipient domain")
    func relayPlain() async throws {
        let mx = try LoopbackMX()
        let transport = RelayTransport(
            hostname: "out.postern.test", relay: try RelayEndpoint(url: "smtp://127.0.0.1:\(mx.port)"),
            signers: SignerTable(signers: ["agents.test": signer]),
            driver: try SMTPClientDriver(policy: AddressPolicy(allowPrivate: true), resolver: NoLookups()), pool: pool,
            timeouts: SMTPClientTimeouts(all: .seconds(20)), now: { now })
        let outcomes = await transport.deliver(batch(["alice@far.test", "x@elsewhere.test"], domain: "far.test"))
        #expect(outcomes.map(\.status.name) == ["delivered", "failed"])
        #expect(outcomes[0].remoteHost == "127.0.0.1")
        let verdicts = await DKIMVerifier(dns: publishedKeys(), now: { now }).verify(
            try #require(mx.sink.messages.first).data)
        #expect(verdicts.map(\.result) == [.pass, .pass])
        await mx.stop()
    }

    @Test(
        "relay with credentials: STARTTLS verified, AUTH; 250, 450 and 550 per recipient; a wrong password defers",
        .enabled(if: Smarthost.isAvailable, "aiosmtpd is not installed (pip install aiosmtpd)"))
    func relayAuthenticated() async throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let smarthost = try Smarthost(certificateFile: certificate.certificateFile, keyFile: certificate.keyFile)
        let driver = try SMTPClientDriver(
            policy: AddressPolicy(allowPrivate: true), resolver: NoLookups(),
            trustedRootsPEMFile: certificate.certificateFile)
        func relay(_ url: String) throws -> RelayTransport {
            RelayTransport(
                hostname: "out.postern.test", relay: try RelayEndpoint(url: url), signers: nil, driver: driver,
                pool: pool, timeouts: SMTPClientTimeouts(all: .seconds(20)), now: { now })
        }
        let recipients = ["alice@far.test", "later@far.test", "nobody@far.test"]
        let good = await (try relay("smtp://relay:secret@localhost:\(smarthost.port)")).deliver(batch(recipients))
        let wrong = await (try relay("smtp://relay:wrong@localhost:\(smarthost.port)")).deliver(batch(recipients))
        let received = try smarthost.stop()
        #expect(good.map(\.status.name) == ["delivered", "deferred", "failed"])
        #expect(good[1].reply?.description == "450 4.2.0 Mailbox busy, try later")
        #expect(good[2].reply?.description == "550 5.1.1 No such user")
        #expect(wrong.map(\.status.name) == ["deferred", "deferred", "deferred"])
        #expect(wrong[0].reply?.description.hasPrefix("535") == true)
        #expect(received.count == 1)
        #expect(received.first?.tls == true && received.first?.auth == true)
        #expect(received.first?.to == ["alice@far.test"])
        #expect(received.first.map { !$0.data.contains("Bcc") } == true)
    }

    @Test(
        "relay over smtps (TLS from the first byte): AUTH without STARTTLS, the certificate verified",
        .enabled(if: Smarthost.isAvailable, "aiosmtpd is not installed (pip install aiosmtpd)"))
    func relayImplicitTLS() async throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let smarthost = try Smarthost(
            certificateFile: certificate.certificateFile, keyFile: certificate.keyFile, implicitTLS: true)
        func relay(trust: String?) throws -> RelayTransport {
            RelayTransport(
                hostname: "out.postern.test",
                relay: try RelayEndpoint(url: "smtps://relay:secret@localhost:\(smarthost.port)"),
                signers: nil,
                driver: try SMTPClientDriver(
                    policy: AddressPolicy(allowPrivate: true), resolver: NoLookups(), trustedRootsPEMFile: trust),
                pool: pool, timeouts: SMTPClientTimeouts(all: .seconds(20)), now: { now })
        }
        let good = await (try relay(trust: certificate.certificateFile)).deliver(batch(["alice@far.test"]))
        // The system's roots do not know the certificate: the handshake fails before a password is sent.
        let untrusted = await (try relay(trust: nil)).deliver(batch(["alice@far.test"]))
        let received = try smarthost.stop()
        #expect(good.map(\.status.name) == ["delivered"])
        #expect(untrusted.map(\.status.name) == ["deferred"])
        #expect(untrusted[0].reply?.description.hasPrefix("451 4.7.0 TLS with localhost") == true)
        #expect(received.count == 1)
        #expect(received.first?.tls == true && received.first?.auth == true)
    }
}

@Suite("Wiring: the transport a configuration calls for, signed by the DKIM key store", .serialized)
struct TransportWiringTests {
    @Test("off: none; direct: DirectTransport; relay: RelayTransport; an unreadable trust file is an error")
    func factory() throws {
        let policies = PolicyServer()
        func make(_ values: [String: String]) throws -> (any OutboundTransport)? {
            try OutboundConfiguration(config: ConfigurationReader { values[$0] }).makeTransport(
                hostname: "out.postern.test", policy: AddressPolicy(), dns: TableDNS(), resolver: NoLookups(),
                policyFetcher: policies,
                signers: nil, pool: pool, now: { now })
        }
        #expect(try make([:]) == nil)
        #expect(try make(["POSTERN_OUTBOUND_DELIVERY": "direct"]) is DirectTransport)
        let relay = ["POSTERN_OUTBOUND_DELIVERY": "relay", "POSTERN_RELAY_URL": "smtp://relay.test"]
        #expect(try make(relay) is RelayTransport)
        #expect(throws: SocketError.tlsFailed) {
            try make(["POSTERN_OUTBOUND_DELIVERY": "direct", "POSTERN_OUTBOUND_TRUST_CA_FILE": "/nonexistent/ca.pem"])
        }
    }

    @Test("DKIMKeyStore as the signer source: keys made on first use; both signatures verify from its TXT records")
    func keyStoreSigns() async throws {
        let test = try StorageBackend.sqlite.makeDatabase()
        let store = try DKIMKeyStore(database: test.database, sealingSecret: nil, clock: { now })
        let mx = try LoopbackMX()
        let transport = RelayTransport(
            hostname: "out.postern.test", relay: try RelayEndpoint(url: "smtp://127.0.0.1:\(mx.port)"),
            signers: store,
            driver: try SMTPClientDriver(policy: AddressPolicy(allowPrivate: true), resolver: NoLookups()), pool: pool,
            timeouts: SMTPClientTimeouts(all: .seconds(20)), now: { now })
        let outcomes = await transport.deliver(batch(["alice@far.test"]))
        #expect(outcomes.map(\.status.name) == ["delivered"])
        var records: [String: [String]] = [:]
        for key in try store.keys(for: "agents.test") { records[key.txtRecordName] = [key.txtRecordValue] }
        #expect(records.count == 2)
        let received = try #require(mx.sink.messages.first)
        let verdicts = await DKIMVerifier(dns: TableDNS(txtRecords: records), now: { now }).verify(received.data)
        #expect(verdicts.map(\.result) == [.pass, .pass])
        await mx.stop()
    }
}
