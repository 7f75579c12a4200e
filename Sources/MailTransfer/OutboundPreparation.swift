import ComputePool
import MailDelivery
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
        let domain = batch.sender.split(separator: "@").last.map { String($0).lowercased() } ?? ""
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
