/// A ``MailAuthDNS`` that asks `dns` until `deadline` and answers every later lookup with a temporary error: one
/// message's checks share one deadline.
struct BudgetedMailAuthDNS: MailAuthDNS {
    let dns: any MailAuthDNS
    let deadline: ContinuousClock.Instant
    let instant: @Sendable () -> ContinuousClock.Instant

    func txt(_ name: String) async -> DNSLookup<[String]> {
        instant() < deadline ? await dns.txt(name) : .failed
    }

    func mx(_ name: String) async -> DNSLookup<[String]> {
        instant() < deadline ? await dns.mx(name) : .failed
    }

    func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]> {
        instant() < deadline ? await dns.addresses(name, ipv6: ipv6) : .failed
    }
}
