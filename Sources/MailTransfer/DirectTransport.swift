import ComputePool
import Logging
import MailDelivery
import SMTPClient
import SMTPOutcomes

/// `direct` mode: each batch straight to its domain's mail exchangers (``MXResolver``), in preference order, on one
/// connection for all its recipients (pipelined when the server offers it), STARTTLS as configured, and MTA-STS
/// (``MTASTSPolicyCache``) honoured: a domain with an `enforce` policy gets mail only over TLS that verifies, to an MX
/// host its policy lists.
///
/// Outcomes: a `2xx` delivered; a `4xx`, no connection, no DNS answer, a session that could not get the TLS it needed
/// deferred; a `5xx`, a domain that does not exist or has a null MX failed. An `enforce` policy that lists none of the
/// domain's MX hosts defers (RFC 8461 §5: a sender must not fail the message for good before it has looked for an
/// updated policy); the queue's lifetime bounces it in the end.
///
/// Under opportunistic TLS without `enforce`, a host whose STARTTLS handshake fails is asked again in the clear on the
/// same attempt, unless the domain took mail over TLS before (``SecureDomainHistory``: the ratchet). Such a domain's
/// mail goes only over TLS: a host that does not offer STARTTLS, answers it with a `4xx` or breaks the handshake defers
/// it, until `postern mail tls-reset` forgets the domain.
public struct DirectTransport: OutboundTransport {
    private let resolver: MXResolver
    private let mtaSTS: MTASTSPolicyCache?
    private let preparation: OutboundPreparation
    private let sequence: SMTPHostSequence
    private let port: Int
    private let client: SMTPClientConfiguration
    private let secureDomains: (any SecureDomainHistory)?
    private let now: @Sendable () -> Int64
    private let logger: Logger

    /// A direct transport.
    /// - Parameters:
    ///   - hostname: this host's public name (`EHLO`, `Received`, a `Message-ID` added here).
    ///   - configuration: the port (`POSTERN_OUTBOUND_SMTP_PORT`) and TLS policy (`POSTERN_OUTBOUND_TLS`).
    ///   - resolver: the MX lookups.
    ///   - mtaSTS: the MTA-STS policies; nil ignores MTA-STS (tests of the rest).
    ///   - signers: the DKIM signers by sender domain; nil sends unsigned.
    ///   - driver: the SMTP client driver (address policy, trust roots).
    ///   - pool: where sessions and signing block; its size bounds how many run at once.
    ///   - timeouts: how long each reply may take (RFC 5321's by default).
    ///   - now: Unix seconds (`Received`, `Date`, DKIM `t=`, the TLS history).
    ///   - secureDomains: the domains that took mail over TLS (the plaintext fallback's ratchet); nil never falls back
    ///     to plain text after a failed handshake and notes nothing.
    ///   - logger: MTA-STS `testing` reports (hosts a policy would have refused), refused downgrades.
    public init(
        hostname: String, configuration: OutboundConfiguration, resolver: MXResolver, mtaSTS: MTASTSPolicyCache?,
        signers: (any DKIMSignerSource)?, driver: SMTPClientDriver, pool: WorkerPool,
        timeouts: SMTPClientTimeouts = SMTPClientTimeouts(), now: @escaping @Sendable () -> Int64,
        secureDomains: (any SecureDomainHistory)? = nil, logger: Logger = Logger(label: "postern.outbound")
    ) {
        self.resolver = resolver
        self.mtaSTS = mtaSTS
        self.preparation = OutboundPreparation(
            preparer: OutboundMessagePreparer(hostname: hostname), signers: signers, pool: pool, now: now)
        self.sequence = SMTPHostSequence(driver: driver, pool: pool)
        self.port = configuration.smtpPort
        var client = SMTPClientConfiguration(heloName: hostname, tls: configuration.tls)
        client.timeouts = timeouts
        self.client = client
        self.secureDomains = secureDomains
        self.now = now
        self.logger = logger
    }

    /// Delivers `batch` to its domain's mail exchangers; one outcome per recipient, in order.
    public func deliver(_ batch: OutboundBatch) async -> [OutboundOutcome] {
        await deliver([batch]).first ?? []
    }

    /// Delivers `batches` (for one domain: batches for several go domain by domain) to the domain's mail exchangers
    /// over one connection per host, `RSET` between messages; one list of outcomes per batch, in order. A batch that
    /// cannot be signed is deferred on its own. `settled` hears of each batch whose outcome is final before the
    /// connection ends.
    public func deliver(_ batches: [OutboundBatch], settled: @escaping OutboundSettled) async -> [[OutboundOutcome]] {
        var domains: [String] = []
        for batch in batches where !domains.contains(batch.domain.lowercased()) {
            domains.append(batch.domain.lowercased())
        }
        guard domains.count == 1, let domain = domains.first else {
            var outcomes: [[OutboundOutcome]] = Array(repeating: [], count: batches.count)
            for domain in domains {
                let indices = batches.indices.filter { batches[$0].domain.lowercased() == domain }
                let delivered = await deliver(indices.map { batches[$0] }) { settled(indices[$0], $1) }
                for (slot, index) in indices.enumerated() { outcomes[index] = delivered[slot] }
            }
            return outcomes
        }
        let hosts: [String]
        switch await resolver.resolve(domain) {
        case .hosts(let found): hosts = found
        // No such domain, a null MX: about each recipient's domain, so about the recipient.
        case .permanentFailure(let reply):
            return batches.map { OutboundPreparation.failAll($0, reply, about: .recipient) }
        case .temporaryFailure(let reply): return batches.map { OutboundPreparation.deferAll($0, reply) }
        }
        let policy = await mtaSTS?.policy(for: domain)
        let decision = MTASTSDecision(policy: policy, hosts: hosts)
        if !decision.reportedHosts.isEmpty {
            logger.info(
                "MTA-STS testing policy would refuse these MX hosts",
                metadata: ["domain": "\(domain)", "hosts": "\(decision.reportedHosts.joined(separator: ","))"])
        }
        guard !decision.hosts.isEmpty else {
            return batches.map {
                OutboundPreparation.deferAll(
                    $0, SMTPReply(451, (4, 7, 5), "the MTA-STS policy of \(domain) lists none of its MX hosts"))
            }
        }
        let prepared = await preparation.prepare(batches)
        var configuration = client
        if decision.requireVerifiedTLS { configuration.tls = .required }
        let resolver = self.resolver
        let fallback = secureDomains.map {
            PlaintextFallback(
                domain: domain.lowercased(),
                permitted: configuration.tls == .opportunistic && !decision.requireVerifiedTLS, history: $0, now: now,
                logger: logger)
        }
        guard !prepared.messages.isEmpty else { return prepared.outcomes([]) }
        // The ratchet: a domain that took mail over TLS gets it over TLS or not at all (its certificate still checked
        // only as the policy says).
        if let fallback, await fallback.requiresTLS() { configuration.tls = .required }
        let delivered = await sequence.deliver(
            prepared.messages, hosts: decision.hosts, port: port, configuration: configuration,
            requireVerifiedTLS: decision.requireVerifiedTLS, addresses: { await resolver.addresses(of: $0) },
            fallback: fallback, settled: prepared.settled(settled))
        return prepared.outcomes(delivered)
    }
}
