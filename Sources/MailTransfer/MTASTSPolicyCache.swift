import Fetch
import MailAuth
import SMTPClient
import Synchronization

/// MTA-STS (RFC 8461) for `direct` delivery: each recipient domain's policy, discovered through its `_mta-sts` TXT
/// record, fetched over HTTPS from `https://mta-sts.<domain>/.well-known/mta-sts.txt` with the outbound fetcher (the
/// same address policy and trust roots as every other outbound request), and cached by the record's `id` for the
/// policy's `max_age`.
///
/// The refresh rules (RFC 8461 §3.3, §5.1): a cached policy whose `id` still matches the TXT record is used without a
/// fetch; a new `id` fetches the policy again; when the TXT record is gone, unreadable, or the fetch fails, a cached
/// policy still within its `max_age` keeps applying (an attacker who blocks DNS or HTTPS cannot turn enforcement
/// off); with no usable policy the domain is treated as having none.
public final class MTASTSPolicyCache: Sendable {
    struct Entry: Sendable {
        let id: String
        let policy: MTASTSPolicy
        let expiresAt: Int64
    }

    private let dns: any MailAuthDNS
    private let fetcher: any URLFetching
    private let now: @Sendable () -> Int64
    private let entries = Mutex<[String: Entry]>([:])
    /// The most domains cached; past it, the entries closest to expiry are dropped.
    public static let capacity = 10_000

    /// A cache asking `dns` for the TXT record and `fetcher` for the policy; `now` gives Unix seconds.
    public init(dns: any MailAuthDNS, fetcher: any URLFetching, now: @escaping @Sendable () -> Int64) {
        self.dns = dns
        self.fetcher = fetcher
        self.now = now
    }

    /// Where `domain`'s policy is served (RFC 8461 §3.3).
    public static func policyURL(for domain: String) -> String {
        "https://mta-sts.\(domain)/.well-known/mta-sts.txt"
    }

    /// `domain`'s policy in force, or nil when it has none (or one whose mode is `none`).
    public func policy(for domain: String) async -> MTASTSPolicy? {
        let domain = domain.lowercased()
        let time = now()
        let cached = entries.withLock { $0[domain] }.flatMap { $0.expiresAt > time ? $0 : nil }
        let record: MTASTSRecord?
        switch await dns.txt("_mta-sts.\(domain)") {
        case .found(let texts): record = MTASTSRecord.select(from: texts)
        case .noSuchName, .failed: record = nil
        }
        guard let record else { return usable(cached?.policy) }
        if let cached, cached.id == record.id { return usable(cached.policy) }
        let fetched: MTASTSPolicy
        do {
            let response = try await fetcher.fetch(Self.policyURL(for: domain))
            // RFC 8461 §3.3: the policy is served as text/plain; anything else is not a policy.
            let type = response.head["Content-Type"]?.lowercased() ?? ""
            guard type.hasPrefix("text/plain") else { return usable(cached?.policy) }
            fetched = try MTASTSPolicy.parse(String(decoding: response.body, as: UTF8.self))
        } catch {
            return usable(cached?.policy)
        }
        let entry = Entry(id: record.id, policy: fetched, expiresAt: time + Int64(fetched.maxAge))
        entries.withLock { table in
            table[domain] = entry
            if table.count > Self.capacity {
                let oldest = table.sorted { $0.value.expiresAt < $1.value.expiresAt }.prefix(table.count / 10)
                for (key, _) in oldest { table.removeValue(forKey: key) }
            }
        }
        return usable(fetched)
    }

    private func usable(_ policy: MTASTSPolicy?) -> MTASTSPolicy? {
        guard let policy, policy.mode != .none else { return nil }
        return policy
    }
}
