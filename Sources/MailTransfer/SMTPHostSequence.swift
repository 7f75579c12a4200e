import ComputePool
import MailDelivery
import SMTPClient
import SMTPOutcomes

/// One attempt at one batch over a list of hosts: the whole batch to the first host; recipients that host turned
/// away for the session as a whole (no connection, a greeting or `EHLO` refused for now, TLS that could not be had,
/// every recipient given the same temporary answer) go to the next host, at most ``MXResolver/maximumHosts``; each
/// recipient's last answer is its outcome.
struct SMTPHostSequence: Sendable {
    let driver: SMTPClientDriver
    let pool: WorkerPool

    /// What became of `message`'s recipients, in order. `addresses` gives the addresses to connect to for a host
    /// (direct mode asks the MX lookup's resolver); none lets the connection resolve the name itself.
    func deliver(
        _ message: SMTPOutboundMessage, hosts: [String], port: Int, configuration: SMTPClientConfiguration,
        requireVerifiedTLS: Bool, implicitTLS: Bool = false,
        addresses: @Sendable (String) async -> [String] = { _ in [] }
    ) async -> [OutboundOutcome] {
        var outcomes: [String: OutboundOutcome] = [:]
        var remaining = message.recipients
        for (index, host) in hosts.enumerated() where !remaining.isEmpty {
            var attempt = message
            attempt.recipients = remaining
            let session = SMTPClientSession(configuration: configuration, messages: [attempt])
            let report = await driver.deliver(
                session, host: host, addresses: await addresses(host), port: port,
                requireVerifiedTLS: requireVerifiedTLS, implicitTLS: implicitTLS, on: pool)
            let results = report.results.first ?? []
            let answeredBy = report.address == nil ? nil : host
            for result in results {
                outcomes[result.recipient] = Self.outcome(result, remoteHost: answeredBy)
            }
            let isLast = index == hosts.count - 1
            guard !isLast, Self.isSessionFailure(results) else { break }
            remaining = results.map(\.recipient)
        }
        return message.recipients.map { recipient in
            outcomes[recipient]
                ?? OutboundOutcome(
                    recipient: recipient,
                    status: .deferred(
                        .local(SMTPReply(451, (4, 4, 1), "no mail exchanger could be tried"), about: nil)))
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
