import ComputePool
import EmailAddresses
import MailDelivery
import SMTPClient
import SMTPOutcomes

/// The step both transports take first: the batch's text prepared (``OutboundMessagePreparer``) and signed with the
/// sender domain's DKIM keys, on the worker pool (a database read and an RSA signature are blocking work).
struct OutboundPreparation: Sendable {
    let preparer: OutboundMessagePreparer
    let signers: (any DKIMSignerSource)?
    let pool: WorkerPool
    let now: @Sendable () -> Int64

    /// The text to send, or the reply line that defers every recipient.
    func prepare(_ batch: OutboundBatch) async -> Result<[UInt8], PreparationFailure> {
        let (preparer, signers, now) = (preparer, signers, now)
        let domain = batch.sender.split(separator: "@").last.map { EmailDomain.key($0) } ?? ""
        do {
            return try await pool.run {
                do {
                    let signer =
                        domain.isEmpty || !batch.sender.contains("@")
                        ? nil : try signers?.dkimSigner(forDomain: domain)
                    return .success(
                        try preparer.prepare(
                            batch.content, queueID: batch.messageID, sender: batch.sender, now: now(), signer: signer))
                } catch OutboundPreparationError.originators {
                    return .failure(
                        PreparationFailure(
                            reply: SMTPReply(550, (5, 7, 1), "the message's From is not its sender; it was not sent"),
                            permanent: true))
                } catch {
                    return .failure(
                        PreparationFailure(
                            reply: SMTPReply(451, (4, 3, 0), "the message could not be DKIM-signed for \(domain)")))
                }
            }
        } catch {
            return .failure(
                PreparationFailure(reply: SMTPReply(451, (4, 3, 2), "too many deliveries queued on this server")))
        }
    }

    /// Prepares every batch of one connection (each on its own: one that cannot be prepared leaves the others).
    func prepare(_ batches: [OutboundBatch]) async -> PreparedBatches {
        var prepared = PreparedBatches(batches: batches)
        for (index, batch) in batches.enumerated() {
            switch await prepare(batch) {
            case .success(let text):
                prepared.messages.append(
                    SMTPOutboundMessage(sender: batch.sender, recipients: batch.recipients, content: text))
                prepared.sent.append(index)
            case .failure(let failure):
                prepared.refused[index] = failure.outcomes(batch)
            }
        }
        return prepared
    }

    /// The batches of one connection, prepared: the messages to send, and which batch each is.
    struct PreparedBatches {
        let batches: [OutboundBatch]
        /// What goes over the connection, in order.
        var messages: [SMTPOutboundMessage] = []
        /// The batch of each message, by position.
        fileprivate(set) var sent: [Int] = []
        /// The outcomes of the batches that could not be prepared, by position.
        fileprivate(set) var refused: [Int: [OutboundOutcome]] = [:]

        /// `settled` told by the batch's index of a message's outcomes, which are told by the message's position.
        func settled(_ settled: @escaping OutboundSettled) -> OutboundSettled {
            let sent = sent
            return { slot, outcomes in if sent.indices.contains(slot) { settled(sent[slot], outcomes) } }
        }

        /// Every batch's outcomes, in order: a sent one's from `delivered` (one list per message), a refused one's
        /// own; a sent one `delivered` has nothing for is deferred, not attempted.
        func outcomes(_ delivered: [[OutboundOutcome]]) -> [[OutboundOutcome]] {
            var outcomes = refused
            for (slot, index) in sent.enumerated() where slot < delivered.count { outcomes[index] = delivered[slot] }
            return batches.indices.map { index in
                outcomes[index]
                    ?? OutboundPreparation.deferAll(batches[index], SMTPReply(451, (4, 3, 0), "not attempted"))
            }
        }
    }

    /// Why a batch could not be prepared: every recipient deferred with ``reply``, or failed when ``permanent``.
    struct PreparationFailure: Error, Sendable {
        let reply: SMTPReply
        var permanent = false

        /// The outcome of every recipient of `batch` (a permanent failure is about the message, not an address).
        func outcomes(_ batch: OutboundBatch) -> [OutboundOutcome] {
            permanent
                ? OutboundPreparation.failAll(batch, reply, about: nil)
                : OutboundPreparation.deferAll(batch, reply)
        }
    }

    /// Every recipient of `batch` deferred with Postern's `reply`, about the message (nil) or an address.
    static func deferAll(_ batch: OutboundBatch, _ reply: SMTPReply, about role: AddressRole? = nil)
        -> [OutboundOutcome]
    {
        batch.recipients.map { OutboundOutcome(recipient: $0, status: .deferred(.local(reply, about: role))) }
    }

    /// Every recipient of `batch` failed with Postern's `reply`, about `role`.
    static func failAll(_ batch: OutboundBatch, _ reply: SMTPReply, about role: AddressRole?) -> [OutboundOutcome] {
        batch.recipients.map { OutboundOutcome(recipient: $0, status: .failed(.local(reply, about: role))) }
    }
}
