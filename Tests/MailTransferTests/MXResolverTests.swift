import DNS
import MailAuth
import MailTransfer
import PosternTestSupport
import SMTPOutcomes
import Testing

/// Where mail for a domain goes: MX by preference, the implicit MX (RFC 5321 §5.1), null MX (RFC 7505), and which
/// DNS answers are permanent and which temporary; through a table and through the stub resolver against a loopback
/// DNS server.
@Suite("MX resolution")
struct MXResolverTests {
    @Test("MX hosts in the resolver's order (preference), lower-cased, trailing dots and repeats dropped, at most 5")
    func ordered() async {
        let dns = TableDNS(mxRecords: [
            "example.com": [
                "MX1.Example.com.", "mx2.example.com", "mx1.example.com", "c.test", "d.test", "e.test",
                "f.test",
            ]
        ])
        #expect(
            await MXResolver(dns: dns).resolve("Example.COM")
                == .hosts(["mx1.example.com", "mx2.example.com", "c.test", "d.test", "e.test"]))
    }

    @Test("hosts of equal preference in a random order (RFC 5321 §5.1), the same for the same seed; lower first")
    func equalPreferenceShuffled() async {
        let dns = TableDNS(mxPreferences: [
            "example.com": [
                MXExchange(preference: 20, host: "backup.example.com"),
                MXExchange(preference: 10, host: "a.example.com"), MXExchange(preference: 10, host: "b.example.com"),
                MXExchange(preference: 10, host: "c.example.com"),
            ]
        ])
        func orders(seed: UInt64) async -> [[String]] {
            let resolver = MXResolver(dns: dns, random: SeededGenerator(seed: seed))
            var orders: [[String]] = []
            for _ in 0..<60 {
                guard case .hosts(let hosts) = await resolver.resolve("example.com") else { return [] }
                orders.append(hosts)
            }
            return orders
        }
        let seen = await orders(seed: 7)
        #expect(seen.count == 60)
        #expect(seen.allSatisfy { $0.last == "backup.example.com" && Set($0.prefix(3)).count == 3 })
        // Each of the three leads some of the time, and not always in one order.
        #expect(Set(seen.compactMap(\.first)) == ["a.example.com", "b.example.com", "c.example.com"])
        #expect(Set(seen).count > 1)
        #expect(await orders(seed: 7) == seen)
        #expect(await orders(seed: 8) != seen)
    }

    @Test("no MX: the domain itself when it has an A or an AAAA record; neither: permanent")
    func implicitMX() async {
        let dns = TableDNS(
            mxRecords: ["v4.test": [], "v6.test": [], "none.test": [], "broken.test": []],
            addressRecords: [
                "v4.test": [[192, 0, 2, 1]], "v6.test": [[0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 12)],
                "none.test": [],
            ])
        let resolver = MXResolver(dns: dns)
        #expect(await resolver.resolve("v4.test") == .hosts(["v4.test"]))
        #expect(await resolver.resolve("v6.test") == .hosts(["v6.test"]))
        #expect(
            await resolver.resolve("none.test")
                == .permanentFailure(SMTPReply(line: "550 5.1.2 none.test has no MX and no address record")))
        // broken.test has MX none and no address table entry: NXDOMAIN for both families, permanent too.
        #expect(
            await resolver.resolve("broken.test")
                == .permanentFailure(SMTPReply(line: "550 5.1.2 broken.test has no MX and no address record")))
    }

    @Test("a null MX (RFC 7505) fails for good; a null MX beside real hosts leaves the real hosts")
    func nullMX() async {
        let dns = TableDNS(mxRecords: ["null.test": [""], "mixed.test": ["", "mx.mixed.test"], "dot.test": ["."]])
        let resolver = MXResolver(dns: dns)
        #expect(
            await resolver.resolve("null.test")
                == .permanentFailure(SMTPReply(line: "556 5.1.10 null.test accepts no mail (null MX, RFC 7505)")))
        #expect(
            await resolver.resolve("dot.test")
                == .permanentFailure(SMTPReply(line: "556 5.1.10 dot.test accepts no mail (null MX, RFC 7505)")))
        #expect(await resolver.resolve("mixed.test") == .hosts(["mx.mixed.test"]))
    }

    @Test("NXDOMAIN is permanent; no answer (SERVFAIL, timeout) is temporary, for MX and for the address fallback")
    func failures() async {
        let dns = TableDNS(
            mxRecords: ["half.test": []], failing: ["down.test"], failingAddresses: ["half.test"])
        let resolver = MXResolver(dns: dns)
        #expect(
            await resolver.resolve("gone.test")
                == .permanentFailure(SMTPReply(line: "550 5.1.2 gone.test does not exist (no such domain in DNS)")))
        #expect(
            await resolver.resolve("down.test")
                == .temporaryFailure(SMTPReply(line: "451 4.4.3 DNS lookup of the MX records of down.test failed")))
        #expect(
            await resolver.resolve("half.test")
                == .temporaryFailure(SMTPReply(line: "451 4.4.3 DNS lookup of the addresses of half.test failed")))
    }

    @Test("through the stub resolver: MX from a loopback DNS server by preference; null MX; NXDOMAIN; SERVFAIL")
    func loopbackDNS() async {
        let zone = LoopbackDNSServer.Zone()
        zone.set("example.test", 15, .mx([.init(20, "mx2.example.test"), .init(10, "mx1.example.test")]))
        zone.set("null.test", 15, .mx([.init(0, "")]))
        zone.set("broken.test", 15, .serverFailure)
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let dns = ResolverMailAuthDNS(
            resolver: DNSResolver(server: DNSServerAddress(server.address)!, timeout: .seconds(2)))
        let resolver = MXResolver(dns: dns)
        #expect(await resolver.resolve("example.test") == .hosts(["mx1.example.test", "mx2.example.test"]))
        #expect(
            await resolver.resolve("null.test")
                == .permanentFailure(SMTPReply(line: "556 5.1.10 null.test accepts no mail (null MX, RFC 7505)")))
        #expect(
            await resolver.resolve("nowhere.test")
                == .permanentFailure(SMTPReply(line: "550 5.1.2 nowhere.test does not exist (no such domain in DNS)")))
        #expect(
            await resolver.resolve("broken.test")
                == .temporaryFailure(SMTPReply(line: "451 4.4.3 DNS lookup of the MX records of broken.test failed")))
    }
}
