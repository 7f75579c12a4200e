import Fetch
import MailAuth
import OutboundSocket
import SMTPOutcomes
import Synchronization

/// Where mail for a domain goes (RFC 5321 §5.1): its MX hosts, most preferred first; the domain itself when it has no
/// MX but has an address (the implicit MX); nowhere, for good, when it publishes a null MX (RFC 7505) or does not
/// exist; and "ask again later" when DNS gives no answer.
///
/// The lookups go through ``MailAuthDNS`` (``ResolverMailAuthDNS`` over the `DNS` target's stub resolver and
/// `POSTERN_DNS_RESOLVER` in the server; a table in tests). Hosts of equal preference come in a random order each time
/// (RFC 5321 §5.1: "the SMTP client SHOULD randomize them to spread the load"), drawn from the generator it is given
/// (tests pass a seeded one); addresses of each host are resolved when it is connected to, under the outbound address
/// policy.
public struct MXResolver: Sendable {
    /// What a lookup came to.
    public enum Resolution: Sendable, Equatable {
        /// The hosts to try, in order (lower-cased, no trailing dot).
        case hosts([String])
        /// No mail can go to the domain: every recipient fails, with this reply (about the recipient's domain).
        case permanentFailure(SMTPReply)
        /// DNS did not answer: every recipient is deferred, with this reply.
        case temporaryFailure(SMTPReply)
    }

    /// The most hosts returned (Postfix's `smtp_mx_address_limit` is 5).
    public static let maximumHosts = 5

    private let dns: any MailAuthDNS
    private let shuffle: EqualPreferenceShuffle

    /// A resolver asking `dns`.
    /// - Parameter random: orders hosts of equal preference; the system's generator by default, a seeded one in tests.
    public init(dns: any MailAuthDNS, random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.dns = dns
        self.shuffle = EqualPreferenceShuffle(random)
    }

    /// Where mail for `domain` goes.
    public func resolve(_ domain: String) async -> Resolution {
        let domain = domain.lowercased()
        switch await dns.mxExchanges(domain) {
        case .noSuchName:
            return .permanentFailure(
                SMTPReply(550, (5, 1, 2), "\(domain) does not exist (no such domain in DNS)"))
        case .failed:
            return .temporaryFailure(
                SMTPReply(451, (4, 4, 3), "DNS lookup of the MX records of \(domain) failed"))
        case .found(let exchanges) where !exchanges.isEmpty:
            let hosts = shuffle.order(exchanges).map(Self.normalized)
            // RFC 7505 §3: a single MX whose exchange is the root ("."); a domain that mixes it with real hosts is
            // misconfigured, and its real hosts are tried.
            let real = hosts.filter { !$0.isEmpty }
            guard !real.isEmpty else {
                return .permanentFailure(
                    SMTPReply(556, (5, 1, 10), "\(domain) accepts no mail (null MX, RFC 7505)"))
            }
            var unique: [String] = []
            for host in real where !unique.contains(host) { unique.append(host) }
            return .hosts(Array(unique.prefix(Self.maximumHosts)))
        case .found:
            return await implicitMX(domain)
        }
    }

    /// No MX record: the domain is its own mail exchanger if it has an A or AAAA record (RFC 5321 §5.1).
    private func implicitMX(_ domain: String) async -> Resolution {
        let v4 = await dns.addresses(domain, ipv6: false)
        if case .found(let addresses) = v4, !addresses.isEmpty { return .hosts([domain]) }
        let v6 = await dns.addresses(domain, ipv6: true)
        if case .found(let addresses) = v6, !addresses.isEmpty { return .hosts([domain]) }
        if v4 == .failed || v6 == .failed {
            return .temporaryFailure(
                SMTPReply(451, (4, 4, 3), "DNS lookup of the addresses of \(domain) failed"))
        }
        return .permanentFailure(
            SMTPReply(550, (5, 1, 2), "\(domain) has no MX and no address record"))
    }

    /// Lower-cased, without a trailing dot; the root (`.` or empty) stays empty.
    static func normalized(_ host: String) -> String {
        var name = host.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// The addresses of an MX host through the same resolver as the MX lookup (`POSTERN_DNS_RESOLVER`), IPv4 first, as
    /// text; empty when the resolver has none or no answer (the connection then asks the same resolver again).
    public func addresses(of host: String) async -> [String] {
        var found: [String] = []
        for ipv6 in [false, true] {
            guard case .found(let addresses) = await dns.addresses(host, ipv6: ipv6) else { continue }
            for bytes in addresses {
                if bytes.count == 4 {
                    found.append(RemoteAddress.v4(bytes.reduce(0) { $0 << 8 | UInt32($1) }).description)
                } else if bytes.count == 16 {
                    found.append(RemoteAddress.v6(bytes).description)
                }
            }
        }
        return found
    }
}

/// Hosts by preference, those of equal preference shuffled with one shared generator.
final class EqualPreferenceShuffle: Sendable {
    private let generator: Mutex<any RandomNumberGenerator & Sendable>

    init(_ generator: some RandomNumberGenerator & Sendable) {
        self.generator = Mutex(generator)
    }

    /// The hosts of `exchanges`, lowest preference first, each run of equal preference in a random order.
    func order(_ exchanges: [MXExchange]) -> [String] {
        let sorted = exchanges.enumerated().sorted {
            ($0.element.preference, $0.offset) < ($1.element.preference, $1.offset)
        }.map(\.element)
        var ordered: [String] = []
        var start = 0
        generator.withLock { generator in
            while start < sorted.count {
                var end = start
                while end < sorted.count && sorted[end].preference == sorted[start].preference { end += 1 }
                var group = sorted[start..<end].map(\.host)
                group.shuffle(using: &generator)
                ordered += group
                start = end
            }
        }
        return ordered
    }
}
