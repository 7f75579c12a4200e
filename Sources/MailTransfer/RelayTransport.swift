import ComputePool
import MailDelivery
import SMTPClient
import SMTPOutcomes

/// `relay` mode: every batch to the smarthost of `POSTERN_RELAY_URL`, one connection carrying all its recipients (and
/// the other batches the queue hands over with it), the smarthost's answer per recipient as the outcome.
///
/// With credentials the session requires TLS (STARTTLS, or TLS from the start for `smtps://`) whose certificate
/// verifies for the relay's name, and authenticates with `AUTH PLAIN` (else `LOGIN`): a password is never sent in the
/// clear nor to an impostor. Without credentials the TLS policy is `POSTERN_OUTBOUND_TLS`, and the certificate must
/// verify whenever TLS is required (a relay is one named host the operator chose, unlike an MX).
public struct RelayTransport: OutboundTransport {
    private let relay: RelayEndpoint
    private let preparation: OutboundPreparation
    private let sequence: SMTPHostSequence
    private let client: SMTPClientConfiguration

    /// A relay transport.
    /// - Parameters:
    ///   - hostname: this host's public name (`EHLO`, `Received`, a `Message-ID` added here).
    ///   - relay: the smarthost.
    ///   - tls: the TLS policy when the relay has no credentials (`POSTERN_OUTBOUND_TLS`).
    ///   - signers: the DKIM signers by sender domain; nil sends unsigned.
    ///   - driver: the SMTP client driver (address policy, trust roots).
    ///   - pool: where sessions and signing block.
    ///   - timeouts: how long each reply may take.
    ///   - now: Unix seconds (`Received`, `Date`, DKIM `t=`).
    public init(
        hostname: String, relay: RelayEndpoint, tls: SMTPTLSPolicy = .opportunistic,
        signers: (any DKIMSignerSource)?, driver: SMTPClientDriver, pool: WorkerPool,
        timeouts: SMTPClientTimeouts = SMTPClientTimeouts(), now: @escaping @Sendable () -> Int64
    ) {
        self.relay = relay
        self.preparation = OutboundPreparation(
            preparer: OutboundMessagePreparer(hostname: hostname), signers: signers, pool: pool, now: now)
        self.sequence = SMTPHostSequence(driver: driver, pool: pool)
        let policy: SMTPTLSPolicy = relay.credentials != nil || relay.implicitTLS ? .required : tls
        var client = SMTPClientConfiguration(heloName: hostname, tls: policy, credentials: relay.credentials)
        client.timeouts = timeouts
        self.client = client
    }

    /// Delivers `batch` through the relay; one outcome per recipient, in order.
    public func deliver(_ batch: OutboundBatch) async -> [OutboundOutcome] {
        await deliver([batch]).first ?? []
    }

    /// Delivers `batches` through the relay over one connection, `RSET` between messages; one list of outcomes per
    /// batch, in order. A batch that cannot be signed is deferred on its own. `settled` hears of each batch whose
    /// outcome is final before the connection ends.
    public func deliver(_ batches: [OutboundBatch], settled: @escaping OutboundSettled) async -> [[OutboundOutcome]] {
        let prepared = await preparation.prepare(batches)
        guard !prepared.messages.isEmpty else { return prepared.outcomes([]) }
        let delivered = await sequence.deliver(
            prepared.messages, hosts: [relay.host], port: relay.port, configuration: client,
            requireVerifiedTLS: client.tls == .required, implicitTLS: relay.implicitTLS,
            settled: prepared.settled(settled))
        return prepared.outcomes(delivered)
    }
}
