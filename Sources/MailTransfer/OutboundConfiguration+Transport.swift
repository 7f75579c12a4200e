import ComputePool
import Fetch
import OutboundSocket
import Logging
import MailAuth
import MailDelivery
import SMTPClient

extension OutboundConfiguration {
    /// The transport this configuration calls for: nil in `off` mode (outside mail stays in the outbox), a
    /// ``DirectTransport`` (with MTA-STS) in `direct`, a ``RelayTransport`` in `relay`.
    /// - Parameters:
    ///   - hostname: this host's public name (`EHLO`, `Received`, `Message-ID`).
    ///   - policy: the outbound address policy (`POSTERN_OUTBOUND_ALLOW_PRIVATE`, `POSTERN_OUTBOUND_ALLOWED_HOSTS`).
    ///   - dns: MX, address and `_mta-sts` lookups (``ResolverMailAuthDNS`` over `POSTERN_DNS_RESOLVER`).
    ///   - resolver: the addresses of a relay host and of an MX host `dns` gave none for (the same `DNSResolver`).
    ///   - policyFetcher: fetches MTA-STS policies; it should trust ``trustCAFile`` like the SMTP sessions do.
    ///   - signers: the DKIM signers by sender domain (the server's `DKIMKeyStore`).
    ///   - pool: where sessions and signing block; its size bounds how many run at once.
    ///   - now: Unix seconds.
    ///   - secureDomains: the domains that took mail over TLS (`direct`'s plaintext fallback and its ratchet); nil
    ///     never falls back to plain text.
    ///   - logger: MTA-STS `testing` reports.
    /// - Throws: ``SocketError/tlsFailed`` when ``trustCAFile`` cannot be read.
    public func makeTransport(
        hostname: String, policy: AddressPolicy, dns: any MailAuthDNS, resolver: any HostResolver,
        policyFetcher: any URLFetching,
        signers: (any DKIMSignerSource)?, pool: WorkerPool, now: @escaping @Sendable () -> Int64,
        secureDomains: (any SecureDomainHistory)? = nil, logger: Logger = Logger(label: "postern.outbound")
    ) throws(SocketError) -> (any OutboundTransport)? {
        switch mode {
        case .off:
            return nil
        case .direct:
            let driver = try SMTPClientDriver(policy: policy, resolver: resolver, trustedRootsPEMFile: trustCAFile)
            return DirectTransport(
                hostname: hostname, configuration: self, resolver: MXResolver(dns: dns),
                mtaSTS: MTASTSPolicyCache(dns: dns, fetcher: policyFetcher, now: now), signers: signers,
                driver: driver, pool: pool, now: now, secureDomains: secureDomains, logger: logger)
        case .relay:
            guard let relay else { return nil }
            let driver = try SMTPClientDriver(policy: policy, resolver: resolver, trustedRootsPEMFile: trustCAFile)
            return RelayTransport(
                hostname: hostname, relay: relay, tls: tls, signers: signers, driver: driver, pool: pool, now: now)
        }
    }
}
