import MailAuth
import OutboundSocket
import PosternTestSupport
import SMTPClient
import Synchronization
import Testing

@testable import Fetch
@testable import MailTransfer

/// Policy bodies served by URL, and every URL asked for.
final class PolicyServer: URLFetching {
    let bodies = Mutex<[String: (contentType: String, body: String)]>([:])
    let asked = Mutex<[String]>([])

    func serve(_ url: String, _ body: String, contentType: String = "text/plain; charset=utf-8") {
        bodies.withLock { $0[url] = (contentType, body) }
    }

    func remove(_ url: String) { bodies.withLock { $0[url] = nil } }

    var requests: [String] { asked.withLock { $0 } }

    func fetch(_ url: String) async throws(FetchError) -> FetchResponse {
        asked.withLock { $0.append(url) }
        guard let (type, body) = bodies.withLock({ $0[url] }) else { throw .badStatus(404) }
        let head = ResponseHead(
            status: 200, minorVersion: 1, headers: [ResponseHead.HeaderField(name: "Content-Type", value: type)])
        return FetchResponse(
            status: 200, head: head, body: Array(body.utf8), url: try FetchURL(parsing: url), redirects: 0)
    }
}

/// A clock tests move by hand (Unix seconds).
final class ManualClock: Sendable {
    let seconds: Atomic<Int64>
    init(_ start: Int64) { seconds = Atomic(start) }
    var now: Int64 { seconds.load(ordering: .relaxed) }
    func advance(_ delta: Int64) { seconds.add(delta, ordering: .relaxed) }
}

/// MTA-STS in `direct` delivery: the decision over MX hosts (RFC 8461 §4.1's matching, §5's enforce and testing),
/// and the policy cache (the `_mta-sts` TXT record's id, `max_age`, a cached policy outliving a blocked lookup).
@Suite("MTA-STS: decision and policy cache")
struct MTASTSTests {
    /// RFC 8461 §3.2's example policy.
    static let rfcPolicy =
        "version: STSv1\nmode: enforce\nmx: mail.example.com\nmx: *.example.net\nmx: backupmx.example.com\n"
        + "max_age: 604800\n"
    static let url = "https://mta-sts.example.com/.well-known/mta-sts.txt"

    @Test("enforce (RFC 8461's example): only listed hosts, the wildcard for one label, over verified TLS")
    func enforce() throws {
        let policy = try MTASTSPolicy.parse(Self.rfcPolicy)
        let decision = MTASTSDecision(
            policy: policy,
            hosts: [
                "mail.example.com", "mx1.example.net", "example.net", "a.b.example.net", "backupmx.example.com",
                "evil.example.org",
            ])
        #expect(decision.hosts == ["mail.example.com", "mx1.example.net", "backupmx.example.com"])
        #expect(decision.requireVerifiedTLS)
        #expect(decision.reportedHosts.isEmpty)
        let none = MTASTSDecision(policy: policy, hosts: ["evil.example.org"])
        #expect(none.hosts.isEmpty && none.requireVerifiedTLS)
    }

    @Test("testing: every host, TLS as configured, the hosts enforce would refuse reported; none or no policy: as is")
    func testingAndNone() throws {
        let testing = try MTASTSPolicy.parse(Self.rfcPolicy.replacingOccurrences(of: "enforce", with: "testing"))
        let decision = MTASTSDecision(policy: testing, hosts: ["mail.example.com", "evil.example.org"])
        #expect(decision.hosts == ["mail.example.com", "evil.example.org"])
        #expect(!decision.requireVerifiedTLS && decision.reportedHosts == ["evil.example.org"])
        let none = MTASTSDecision(policy: MTASTSPolicy(mode: .none, mxPatterns: [], maxAge: 86400), hosts: ["a.test"])
        #expect(none == MTASTSDecision(policy: nil, hosts: ["a.test"]))
        #expect(none.hosts == ["a.test"] && !none.requireVerifiedTLS && none.reportedHosts.isEmpty)
    }

    @Test("the policy is fetched from mta-sts.<domain> once per TXT id, again when the id changes")
    func cachedByID() async throws {
        let clock = ManualClock(1_800_000_000)
        let server = PolicyServer()
        server.serve(Self.url, Self.rfcPolicy)
        let dns = MutableTXT(["_mta-sts.example.com": ["v=STSv1; id=20160831085700Z;"]])
        let cache = MTASTSPolicyCache(dns: dns, fetcher: server, now: { clock.now })
        let first = await cache.policy(for: "Example.com")
        #expect(first?.mode == .enforce && first?.mxPatterns.count == 3)
        #expect(await cache.policy(for: "example.com") == first)
        #expect(server.requests == [Self.url])
        // A new id: the policy changed; it is fetched again.
        server.serve(Self.url, Self.rfcPolicy.replacingOccurrences(of: "enforce", with: "testing"))
        dns.set("_mta-sts.example.com", ["v=STSv1; id=20260101000000Z;"])
        #expect(await cache.policy(for: "example.com")?.mode == .testing)
        #expect(server.requests.count == 2)
    }

    @Test("a cached policy outlives a vanished TXT record or a failed fetch until max_age; then there is none")
    func survivesBlocking() async throws {
        let clock = ManualClock(1_800_000_000)
        let server = PolicyServer()
        server.serve(Self.url, Self.rfcPolicy.replacingOccurrences(of: "604800", with: "3600"))
        let dns = MutableTXT(["_mta-sts.example.com": ["v=STSv1; id=one;"]])
        let cache = MTASTSPolicyCache(dns: dns, fetcher: server, now: { clock.now })
        #expect(await cache.policy(for: "example.com")?.mode == .enforce)
        // An attacker strips the TXT record and blocks the policy host: enforcement stays.
        dns.set("_mta-sts.example.com", nil)
        server.remove(Self.url)
        clock.advance(3599)
        #expect(await cache.policy(for: "example.com")?.mode == .enforce)
        dns.set("_mta-sts.example.com", ["v=STSv1; id=two;"])
        #expect(await cache.policy(for: "example.com")?.mode == .enforce)
        clock.advance(1)
        #expect(await cache.policy(for: "example.com") == nil)
    }

    @Test("no policy: no TXT record, several, an invalid one, a body that is not text/plain or does not parse")
    func noPolicy() async {
        let clock = ManualClock(1_800_000_000)
        let server = PolicyServer()
        server.serve("https://mta-sts.html.test/.well-known/mta-sts.txt", Self.rfcPolicy, contentType: "text/html")
        server.serve("https://mta-sts.bad.test/.well-known/mta-sts.txt", "version: STSv1\nmode: enforce\n")
        server.serve("https://mta-sts.none.test/.well-known/mta-sts.txt", "version: STSv1\nmode: none\nmax_age: 60\n")
        let dns = MutableTXT([
            "_mta-sts.two.test": ["v=STSv1; id=a;", "v=STSv1; id=b;"], "_mta-sts.invalid.test": ["v=STSv1; id=a b;"],
            "_mta-sts.html.test": ["v=STSv1; id=1;"], "_mta-sts.bad.test": ["v=STSv1; id=1;"],
            "_mta-sts.none.test": ["v=STSv1; id=1;"],
        ])
        let cache = MTASTSPolicyCache(dns: dns, fetcher: server, now: { clock.now })
        for domain in ["absent.test", "two.test", "invalid.test", "html.test", "bad.test", "none.test"] {
            #expect(await cache.policy(for: domain) == nil, "\(domain)")
        }
        #expect(server.requests.count == 3)
    }
}

/// TXT records a test changes as it goes.
final class MutableTXT: MailAuthDNS {
    let records: Mutex<[String: [String]]>
    init(_ records: [String: [String]]) { self.records = Mutex(records) }
    func set(_ name: String, _ texts: [String]?) { records.withLock { $0[name] = texts } }
    func txt(_ name: String) async -> DNSLookup<[String]> {
        records.withLock { $0[name] }.map { .found($0) } ?? .noSuchName
    }
    func mx(_ name: String) async -> DNSLookup<[String]> { .noSuchName }
    func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]> { .noSuchName }
}

/// The policy host of `far.test` played by a loopback HTTPS origin whose certificate names `localhost`: the URL the
/// cache asks for is pointed there, and the real fetcher checks the chain and the name.
private struct LoopbackPolicyHost: URLFetching {
    let fetcher: Fetcher
    let port: Int

    func fetch(_ url: String) async throws(FetchError) -> FetchResponse {
        try await fetcher.fetch(
            url.replacingOccurrences(of: "https://mta-sts.far.test/", with: "https://localhost:\(port)/"))
    }
}

@Suite(
    "MTA-STS policies over real HTTPS", .serialized,
    .enabled(if: TLSOrigin.opensslPath != nil, "needs the openssl command"))
struct MTASTSOverHTTPSTests {
    static func fetcher(roots: String?) throws -> Fetcher {
        var configuration = FetchConfiguration(policy: AddressPolicy(allowedHosts: ["localhost"]))
        configuration.trustedRootsPEMFile = roots
        return try Fetcher(configuration: configuration, resolver: NoLookups())
    }

    @Test("fetched over verified TLS from the well-known path; an untrusted certificate or a non-text body: no policy")
    func fetched() async throws {
        let origin = try TLSOrigin()
        try origin.serve(".well-known/mta-sts.txt", body: MTASTSTests.rfcPolicy)
        let dns = MutableTXT(["_mta-sts.far.test": ["v=STSv1; id=1;"]])
        let trusted = MTASTSPolicyCache(
            dns: dns, fetcher: LoopbackPolicyHost(fetcher: try Self.fetcher(roots: origin.caFile), port: origin.port),
            now: { 1_800_000_000 })
        let policy = try #require(await trusted.policy(for: "far.test"))
        #expect(policy.mode == .enforce && policy.maxAge == 604_800)
        #expect(policy.matches(mxHost: "mx1.example.net"))
        let untrusted = MTASTSPolicyCache(
            dns: dns, fetcher: LoopbackPolicyHost(fetcher: try Self.fetcher(roots: nil), port: origin.port),
            now: { 1_800_000_000 })
        #expect(await untrusted.policy(for: "far.test") == nil)
        try origin.serve(".well-known/mta-sts.txt", body: MTASTSTests.rfcPolicy, contentType: "text/html")
        let html = MTASTSPolicyCache(
            dns: dns, fetcher: LoopbackPolicyHost(fetcher: try Self.fetcher(roots: origin.caFile), port: origin.port),
            now: { 1_800_000_000 })
        #expect(await html.policy(for: "far.test") == nil)
    }
}
