import Testing

@testable import MailAuth

/// SPF and DMARC against a DNS table.
@Suite("SPF and DMARC")
struct SPFAndDMARCTests {
    static let dns = FakeDNS(
        txtRecords: [
            "example.com": ["v=spf1 ip4:192.0.2.0/24 include:_spf.example.net mx -all", "unrelated text"],
            "_spf.example.net": ["v=spf1 ip6:2001:db8::/32 a:relay.example.net ~all"],
            "soft.test": ["v=spf1 ?ip4:198.51.100.1 ~all"],
            "two.test": ["v=spf1 -all", "v=spf1 +all"],
            "loop.test": ["v=spf1 include:loop.test -all"],
            "redirected.test": ["v=spf1 redirect=example.com"],
            "macro.test": ["v=spf1 exists:%{i}.bl.test -all"],
            "port.test": ["v=spf1 ip4:192.0.2.1:25 -all"],
            "family.test": ["v=spf1 ip4:2001:db8::1 -all"],
            "wide.test": ["v=spf1 ip4:192.0.2.1/33 ?all"],
            "cidr.test": ["v=spf1 a/24 -all"],
            "_dmarc.example.com": ["v=DMARC1; p=reject; adkim=s"],
            "_dmarc.relaxed.test": ["v=DMARC1; p=quarantine"],
        ],
        mxRecords: ["example.com": ["mx1.example.com"]],
        addressRecords: [
            "mx1.example.com": [[203, 0, 113, 5]],
            "relay.example.net": [[198, 51, 100, 9]],
            "cidr.test": [[198, 51, 100, 200]],
        ],
        failing: ["down.test", "_dmarc.down.test"])

    static func spf(_ ip: String, _ from: String, helo: String = "client.test") async -> AuthResult {
        await SPFEvaluator(dns: dns).check(clientIP: ip, mailFrom: from, helo: helo).result
    }

    @Test("ip4 and ip6 ranges, include, a, mx, all, qualifiers and redirect")
    func mechanisms() async {
        #expect(await Self.spf("192.0.2.77", "a@example.com") == .pass)
        #expect(await Self.spf("::ffff:192.0.2.77", "a@example.com") == .pass)  // IPv4-mapped is IPv4
        #expect(await Self.spf("2001:db8::1", "a@example.com") == .pass)  // through include's ip6
        #expect(await Self.spf("198.51.100.9", "a@example.com") == .pass)  // include's a:
        #expect(await Self.spf("203.0.113.5", "a@example.com") == .pass)  // mx
        #expect(await Self.spf("203.0.113.6", "a@example.com") == .fail)  // -all; include's ~all does not match
        #expect(await Self.spf("198.51.100.1", "a@soft.test") == .neutral)
        #expect(await Self.spf("198.51.100.2", "a@soft.test") == .softfail)
        #expect(await Self.spf("192.0.2.1", "a@redirected.test") == .pass)
        #expect(await Self.spf("192.0.2.1", "", helo: "example.com") == .pass)  // null sender: the HELO name
    }

    @Test("none, permerror (two records, a loop past the lookup limit, macros) and temperror")
    func errors() async {
        #expect(await Self.spf("192.0.2.1", "a@nospf.test") == .none)
        #expect(await Self.spf("192.0.2.1", "a@two.test") == .permerror)
        #expect(await Self.spf("192.0.2.1", "a@loop.test") == .permerror)
        #expect(await Self.spf("192.0.2.1", "a@macro.test") == .permerror)
        #expect(await Self.spf("192.0.2.1", "a@down.test") == .temperror)
    }

    @Test("ip4 and ip6 take one address spelling: a port or the other family is permerror; a/24 matches the block")
    func addressSpellings() async {
        #expect(await Self.spf("192.0.2.1", "a@port.test") == .permerror)
        #expect(await Self.spf("192.0.2.1", "a@family.test") == .permerror)
        #expect(await Self.spf("192.0.2.1", "a@wide.test") == .neutral)  // a length past 32 matches nothing
        #expect(await Self.spf("[192.0.2.1]", "a@example.com") == .none)  // the client's address is one spelling too
        #expect(await Self.spf("198.51.100.7", "a@cidr.test") == .pass)
        #expect(await Self.spf("198.51.101.7", "a@cidr.test") == .fail)
    }

    @Test("DMARC: aligned DKIM or SPF passes, strict alignment, the organizational domain's record, none")
    func dmarc() async {
        let evaluator = DMARCEvaluator(dns: Self.dns)
        let spfPass = SPFEvaluator.Outcome(result: .pass, domain: "example.com")
        let spfFail = SPFEvaluator.Outcome(result: .fail, domain: "example.com")
        let viaSPF = await evaluator.check(fromDomain: "example.com", spf: spfPass, dkimPassedDomains: [])
        #expect(viaSPF == .init(result: .pass, policy: "reject", fromDomain: "example.com"))
        let viaDKIM = await evaluator.check(fromDomain: "example.com", spf: spfFail, dkimPassedDomains: ["example.com"])
        #expect(viaDKIM.result == .pass)
        // adkim=s: a signature of a subdomain does not align.
        let strict = await evaluator.check(
            fromDomain: "example.com", spf: spfFail, dkimPassedDomains: ["mail.example.com"])
        #expect(strict.result == .fail && strict.policy == "reject")
        // The organizational domain's record, relaxed alignment.
        let sub = await evaluator.check(
            fromDomain: "news.relaxed.test", spf: .init(result: .pass, domain: "bounce.relaxed.test"),
            dkimPassedDomains: [])
        #expect(sub == .init(result: .pass, policy: "quarantine", fromDomain: "news.relaxed.test"))
        #expect(await evaluator.check(fromDomain: "nodmarc.test", spf: spfPass, dkimPassedDomains: []).result == .none)
        #expect(
            await evaluator.check(fromDomain: "down.test", spf: spfPass, dkimPassedDomains: []).result == .temperror)
    }

    @Test("the whole verdict for the dkimpy fixture sent from an address SPF allows")
    func whole() async {
        var dns = Self.dns
        dns.txtRecords["rsa1._domainkey.example.com"] = [DKIMFixture.rsaKeyRecord]
        dns.txtRecords["ed1._domainkey.example.com"] = [DKIMFixture.ed25519KeyRecord]
        let verdict = await MailAuthenticator(dns: dns, now: { 1_795_602_199 }).evaluate(
            DKIMFixture.message, clientIP: "192.0.2.10", mailFrom: "bounce@example.com", helo: "mx.example.com")
        #expect(verdict.spf.result == .pass && verdict.dkim == .pass && verdict.dmarc.result == .pass)
        #expect(verdict.dmarc.fromDomain == "example.com")
    }
}
