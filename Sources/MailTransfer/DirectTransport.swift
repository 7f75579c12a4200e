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
public struct DirectTransport: OutboundTransport {
    private let resolver: MXResolver
    private let mtaSTS: MTASTSPolicyCache?
    private let preparation: OutboundPreparation
    private let sequence: SMTPHostSequence
    private let port: Int
    private let client: SMTPClientConfiguration
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
    ///   - now: Unix seconds (`Received`, `Date`, DKIM `t=`).
    ///   - logger: MTA-STS `testing` reports (hosts a policy would have refused).
    public init(
        hostname: String, configuration: OutboundConfiguration, resolver: MXResolver, mtaSTS: MTASTSPolicyCache?,
        signers: (any DKIMSignerSource)?, driver: SMTPClientDriver, pool: WorkerPool,
        timeouts: SMTPClientTimeouts = SMTPClientTimeouts(), now: @escaping @Sendable () -> Int64,
        logger: Logger = Logger(label: "postern.outbound")
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
        self.logger = logger
    }

    /// Delivers `batch` to its domain's mail exchangers; one outcome per recipient, in order.
    public func deliver(_ batch: OutboundBatch) async -> [OutboundOutcome] {
        let hosts: [String]
        switch await resolver.resolve(batch.domain) {
        case .hosts(let found): hosts = found
        // No such domain, a null MX: about each recipient's domain, so about the recipient.
        case .permanentFailure(let reply): return OutboundPreparation.failAll(batch, reply, about: .recipient)
        case .temporaryFailure(let reply): return OutboundPreparation.deferAll(batch, reply)
        }
        let policy = await mtaSTS?.policy(for: batch.domain)
        let decision = MTASTSDecision(policy: policy, hosts: hosts)
        if !decision.reportedHosts.isEmpty {
            logger.info(
                "MTA-STS testing policy would refuse these MX hosts",
                metadata: ["domain": "\(batch.domain)", "hosts": "\(decision.reportedHosts.joined(separator: ","))"])
        }
        guard !decision.hosts.isEmpty else {
            return OutboundPreparation.deferAll(
                batch, SMTPReply(451, (4, 7, 5), "the MTA-STS policy of \(batch.domain) lists none of its MX hosts"))
        }
        let text: [UInt8]
        switch await preparation.prepare(batch) {
        case .success(let prepared): text = prepared
        case .failure(let failure): return OutboundPreparation.deferAll(batch, failure.reply)
        }
        var configuration = client
        if decision.requireVerifiedTLS { configuration.tls = .required }
        let message = SMTPOutboundMessage(sender: batch.sender, recipients: batch.recipients, content: text)
        let resolver = self.resolver
        return await sequence.deliver(
            message, hosts: decision.hosts, port: port, configuration: configuration,
            requireVerifiedTLS: decision.requireVerifiedTLS, addresses: { await resolver.addresses(of: $0) })
    }
}
