import ComputePool
import MailDelivery
import SMTPClient
import SMTPOutcomes

/// One attempt at one or more batches of one destination over a list of hosts, on one connection per host: every
/// message to the first host; recipients that host turned away for the session as a whole (no connection, a greeting
/// or `EHLO` refused for now, TLS that could not be had, every recipient given the same temporary answer) go to the
/// next host, at most ``MXResolver/maximumHosts``; each recipient's last answer is its outcome. With a
/// ``PlaintextFallback``, a host whose STARTTLS handshake failed is asked again in the clear when the fallback allows
/// it, and a delivery over TLS is noted.
struct SMTPHostSequence: Sendable {
    let driver: SMTPClientDriver
    let pool: WorkerPool

    /// What became of `message`'s recipients, in order: the many-message form below, for one.
    func deliver(
        _ message: SMTPOutboundMessage, hosts: [String], port: Int, configuration: SMTPClientConfiguration,
        requireVerifiedTLS: Bool, implicitTLS: Bool = false,
        addresses: @Sendable (String) async -> [String] = { _ in [] }, fallback: PlaintextFallback? = nil
    ) async -> [OutboundOutcome] {
        await deliver(
            [message], hosts: hosts, port: port, configuration: configuration, requireVerifiedTLS: requireVerifiedTLS,
            implicitTLS: implicitTLS, addresses: addresses, fallback: fallback
        ).first ?? []
    }

    /// What became of each message's recipients, per message in order, the messages carried over one connection per
    /// host (`RSET` between them). `addresses` gives the addresses to connect to for a host (direct mode asks the MX
    /// lookup's resolver); none lets the connection resolve the name itself. `fallback` (direct mode) retries a failed
    /// STARTTLS handshake in the clear when it allows, and notes deliveries over TLS. `settled` is told a message's
    /// outcomes as soon as they are final: when its transaction ended with a recipient delivered or failed (one only
    /// deferred may still go to the next host).
    func deliver(
        _ messages: [SMTPOutboundMessage], hosts: [String], port: Int, configuration: SMTPClientConfiguration,
        requireVerifiedTLS: Bool, implicitTLS: Bool = false,
        addresses: @Sendable (String) async -> [String] = { _ in [] }, fallback: PlaintextFallback? = nil,
        settled: OutboundSettled? = nil
    ) async -> [[OutboundOutcome]] {
        var outcomes: [[String: OutboundOutcome]] = Array(repeating: [:], count: messages.count)
        var remaining = messages.map(\.recipients)
        for (index, host) in hosts.enumerated() where remaining.contains(where: { !$0.isEmpty }) {
            // The messages with recipients left for this host, and which message each is.
            let pending = messages.indices.filter { !remaining[$0].isEmpty }
            let attempt = pending.map { message in
                var copy = messages[message]
                copy.recipients = remaining[message]
                return copy
            }
            let hostAddresses = await addresses(host)
            let ended = settled.map { settled in
                { @Sendable (slot: Int, results: [SMTPRecipientResult]) in
                    guard results.contains(where: { if case .deferred = $0.status { false } else { true } }) else {
                        return
                    }
                    settled(pending[slot], results.map { Self.outcome($0, remoteHost: host) })
                }
            }
            var report = await driver.deliver(
                SMTPClientSession(configuration: configuration, messages: attempt), host: host,
                addresses: hostAddresses, port: port, requireVerifiedTLS: requireVerifiedTLS,
                implicitTLS: implicitTLS, on: pool, settled: ended)
            if report.tlsHandshakeFailed, configuration.tls == .opportunistic, let fallback,
                await fallback.allowsPlaintext()
            {
                var clear = configuration
                clear.tls = .disabled
                report = await driver.deliver(
                    SMTPClientSession(configuration: clear, messages: attempt), host: host, addresses: hostAddresses,
                    port: port, requireVerifiedTLS: false, on: pool, settled: ended)
            }
            let all = report.results.flatMap { $0 }
            if report.usedTLS, all.contains(where: { if case .delivered = $0.status { true } else { false } }),
                let fallback
            {
                await fallback.deliveredOverTLS()
            }
            let answeredBy = report.address == nil ? nil : host
            for (slot, message) in pending.enumerated() where slot < report.results.count {
                for result in report.results[slot] {
                    outcomes[message][result.recipient] = Self.outcome(result, remoteHost: answeredBy)
                }
            }
            let isLast = index == hosts.count - 1
            guard !isLast, Self.isSessionFailure(all) else { break }
            for (slot, message) in pending.enumerated() where slot < report.results.count {
                remaining[message] = report.results[slot].map(\.recipient)
            }
        }
        return messages.indices.map { message in
            messages[message].recipients.map { recipient in
                outcomes[message][recipient]
                    ?? OutboundOutcome(
                        recipient: recipient,
                        status: .deferred(
                            .local(SMTPReply(451, (4, 4, 1), "no mail exchanger could be tried"), about: nil)))
            }
        }
    }

    /// Whether the session failed as a whole rather than per recipient, so that the next host may do better: every
    /// recipient deferred with the same failure (no connection, a greeting or `EHLO` refused for now, TLS that could
    /// not be had). A `5xx` is the domain's authoritative answer and is never asked of a backup MX, which often
    /// accepts anything and bounces later.
    static func isSessionFailure(_ results: [SMTPRecipientResult]) -> Bool {
        guard let first = results.first, case .deferred = first.status else { return false }
        return results.allSatisfy { $0.status == first.status }
    }

    /// The queue's outcome for a session's result: its status as the session decided it, and the host that answered.
    static func outcome(_ result: SMTPRecipientResult, remoteHost: String?) -> OutboundOutcome {
        OutboundOutcome(recipient: result.recipient, status: result.status, remoteHost: remoteHost)
    }
}
