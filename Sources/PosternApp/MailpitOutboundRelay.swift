import MailSubmission
import MailpitAPI

/// Mailpit's release over the one submission owner (issue 71, issue 82): a stored message sent on as its sender's
/// submission through every check of a submission (``Submitter``), held recipients refused rather than kept, since
/// Mailpit relays now or not at all. The queue prepares what leaves as any submission (`Bcc` removed, `Date` and
/// `Message-ID` added when absent, DKIM-signed, its originators checked again) and reports a bounce to the sender's
/// inbox. Only made when outbound delivery is on.
struct MailpitOutboundRelay: MailpitRelay {
    let submitter: Submitter
    let clock: @Sendable () -> Int64

    func release(_ raw: [UInt8], messageID: String, from sender: String, to recipients: [String]) async throws -> Int {
        // Mailpit keeps no threads: the message is its own.
        let request = SubmissionRequest(
            sender: sender, emailID: messageID, threadID: messageID, raw: raw, recipients: recipients,
            whenHeld: .refuse)
        do {
            let submitted = try await submitter.submit(request, now: clock())
            return submitted.delivered + submitted.queued
        } catch let refusal as SubmissionRefusal {
            throw Self.refusal(refusal, sender: sender)
        }
    }

    /// The owner's refusal as Mailpit's port names it (MailpitAPI words it).
    static func refusal(_ refusal: SubmissionRefusal, sender: String) -> MailpitReleaseRefusal {
        switch refusal {
        case .notWrittenBySender(let id): .notWrittenBySender(messageID: id)
        case .senderNotLocal(let address): .senderNotLocal(address)
        case .held(let reason): .held(sender: sender, why: reason.explanation)
        case .unreadableHeader, .foreignOriginator, .foreignMailFrom, .noRecipients, .unknownRecipients, .limit,
            .tooLarge, .overQuota:
            .refused(why: refusal.explanation)
        }
    }
}
