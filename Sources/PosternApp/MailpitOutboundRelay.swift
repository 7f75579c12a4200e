import Directory
import Foundation
import JMAP
import MailDelivery
import MailStore
import MailpitAPI
import SMTPOutcomes

/// Mailpit's release over Postern's outbound queue (issue 71): a stored message its sender wrote in its own mailbox
/// (``JMAPOutbound/maySubmit(_:storedAt:as:)``: never a received one, issue 81 item 7) sent on as a submission of it,
/// through the one admission of a new submission and of a release of held mail
/// (``JMAPOutbound/admit(sender:quota:adding:raw:now:)``: the sender rule, the limits, the size limit, the sender's
/// quota), then recorded in the ledger with every `To` queued to leave. The queue prepares it as any submission (`Bcc`
/// removed, `Date` and `Message-ID` added when absent, DKIM-signed, its originators checked again) and reports a bounce
/// to the sender's inbox. Only made when outbound delivery is on.
struct MailpitOutboundRelay: MailpitRelay {
    let outbound: JMAPOutbound
    let directory: any AccountDirectory
    let store: MailStore
    let clock: @Sendable () -> Int64

    func release(_ raw: [UInt8], messageID: String, from sender: String, to recipients: [String]) async throws -> Int {
        // The one rule of a submission (review 5, issue 81 item 7): only what the sender wrote in its own mailbox is
        // sent as its mail, DKIM-signed for its domain; a received message, whatever its From, is refused.
        guard let address = try await store.address(ofMessage: messageID) else {
            throw MailpitReleaseRefusal.notWrittenBySender(messageID: messageID)
        }
        let origin = try await store.origin(address: address, id: messageID)
        guard JMAPOutbound.maySubmit(origin, storedAt: address, as: sender) else {
            throw MailpitReleaseRefusal.notWrittenBySender(messageID: messageID)
        }
        guard case .local(let account) = try await directory.resolve(sender) else {
            throw MailpitReleaseRefusal.senderNotLocal(sender)
        }
        // The ledger keeps a submission under an account; the directory names none for an agent inbox, whose
        // submission is then kept under its address (its JMAP EmailSubmission/get does not list a release).
        let accountID = account.accountID ?? account.address
        let now = clock()
        let standing: OutsideStanding
        do {
            standing = try await outbound.admit(
                sender: sender, quota: account.quota, adding: recipients.count, raw: raw, now: now)
        } catch let refusal as SetError {
            throw MailpitReleaseRefusal.refused(why: refusal.description)
        }
        let holder: SubmissionHolder?
        switch standing {
        case .held(let reason): throw MailpitReleaseRefusal.held(sender: sender, why: reason.explanation)
        case .leaves(let answering): holder = answering
        }
        let submission = NewSubmission(
            id: UUID().uuidString.lowercased(), accountID: accountID, sender: sender, emailID: messageID,
            threadID: messageID, sendAt: now, holder: holder,
            recipients: recipients.map { SubmissionRecipient(address: $0, status: .queued) }, content: raw,
            envelope: SubmissionEnvelope(mailFrom: sender, rcptTo: recipients))
        do {
            let record = try await outbound.ledger.record(submission, limits: outbound.limits, now: now)
            return record.recipients.count { $0.status == .queued }
        } catch let reached as SendLimitReached {
            throw MailpitReleaseRefusal.refused(
                why: "\(sender)'s \(reached.limit.name) limit of \(reached.limit.count) recipients is reached")
        }
    }
}
