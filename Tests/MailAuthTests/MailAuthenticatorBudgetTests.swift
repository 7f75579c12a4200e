import Synchronization
import Testing

@testable import MailAuth

/// A DNS table whose every lookup takes `step` of a clock the test owns, counted.
final class SlowDNS: MailAuthDNS {
    let table: FakeDNS
    let step: Duration
    let start = ContinuousClock.now
    private let state = Mutex<(elapsed: Duration, lookups: Int)>((.zero, 0))

    init(_ table: FakeDNS, step: Duration) {
        self.table = table
        self.step = step
    }

    var lookups: Int { state.withLock { $0.lookups } }
    var instant: ContinuousClock.Instant { start + state.withLock { $0.elapsed } }

    private func tick() {
        state.withLock {
            $0.elapsed += step
            $0.lookups += 1
        }
    }

    func txt(_ name: String) async -> DNSLookup<[String]> {
        tick()
        return await table.txt(name)
    }

    func mx(_ name: String) async -> DNSLookup<[String]> {
        tick()
        return await table.mx(name)
    }

    func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]> {
        tick()
        return await table.addresses(name, ipv6: ipv6)
    }
}

@Suite("One message's checks share one DNS budget")
struct MailAuthenticatorBudgetTests {
    static func evaluate(budget: Duration) async -> (MailAuthenticator.Verdict, lookups: Int) {
        var table = SPFAndDMARCTests.dns
        table.txtRecords["rsa1._domainkey.example.com"] = [DKIMFixture.rsaKeyRecord]
        table.txtRecords["ed1._domainkey.example.com"] = [DKIMFixture.ed25519KeyRecord]
        let dns = SlowDNS(table, step: .seconds(3))
        let authenticator = MailAuthenticator(
            dns: dns, budget: budget, instant: { dns.instant }, now: { 1_795_602_199 })
        // 198.51.100.77 is in none of example.com's mechanisms: SPF walks all of them (five lookups) to `-all`.
        let verdict = await authenticator.evaluate(
            DKIMFixture.message, clientIP: "198.51.100.77", mailFrom: "bounce@example.com", helo: "mx.example.com")
        return (verdict, dns.lookups)
    }

    @Test("within the budget every lookup is made: SPF fails on -all, DKIM passes, DMARC passes by DKIM")
    func within() async {
        let (verdict, lookups) = await Self.evaluate(budget: .seconds(60))
        #expect(verdict.spf.result == .fail && verdict.dkim == .pass && verdict.dmarc.result == .pass)
        #expect(lookups > 5)
    }

    @Test("past the budget no lookup is made: what was left is temperror, never a negative answer")
    func past() async {
        // Lookups at 0, 3, 6 and 9 s of a 10 s budget are made; the fifth, at 12 s, is not, nor any later.
        let (verdict, lookups) = await Self.evaluate(budget: .seconds(10))
        #expect(lookups == 4)
        #expect(verdict.spf.result == .temperror)
        #expect(verdict.dkimSignatures.allSatisfy { $0.result == .temperror })
        #expect(verdict.dmarc.result == .temperror)
    }
}
