import ClientAddress
import Directory
import JMAP
import MailDelivery
import MailSubmission
import JSON
import WebInbox

/// The web inbox's sender over JMAP: an owner's message goes through ``JMAPService/send(_:as:client:requestID:)``, the
/// `Email/set` draft and the `EmailSubmission/set` a JMAP client sends (its `onSuccessUpdateEmail` files it in Sent,
/// read), run in-process as the owner's inbox (``OwnerPrincipals/principal(ownerID:address:)``). Every rule of
/// sending is JMAP's: who the message says it is from, which recipients exist, the per-sender limits on other domains,
/// what leaves this server. A refused submission destroys its draft again, so nothing is left behind.
struct JMAPWebInboxSender: WebInboxSender {
    let jmap: JMAPService
    let principals: OwnerPrincipals

    /// A method-level error of the mail API (not a refusal of what was written): the page's bare 500.
    struct Failure: Error {
        let type: String
    }

    func send(
        _ draft: WebInboxDraft, from address: String, ownerID: String, client: ClientAddressKey, requestID: String
    ) async throws -> WebInboxSendReport {
        guard let principal = try await principals.principal(ownerID: ownerID, address: address) else {
            throw WebInboxSendRefusal(.notAllowed)
        }
        do {
            let sent = try await jmap.send(Self.message(draft), as: principal, client: client, requestID: requestID)
            guard let recorded = sent.recipients else { return Self.report(sent.deliveryStatus.objectValue ?? []) }
            return Self.report(recorded)
        } catch SendFailure.refused(.draft, let error) {
            throw WebInboxSendRefusal(Self.draftRefusal(error))
        } catch SendFailure.refused(.submission, let error) {
            // The in-process submission names its draft and nothing else: every refusal is the owner's, typed.
            throw WebInboxSendRefusal(error.refusal.map(Self.submissionRefusal) ?? .unwritable)
        } catch SendFailure.refused(.attachments, _) {
            throw WebInboxSendRefusal(.unwritable)
        } catch SendFailure.failed(_, let type, _) {
            throw Failure(type: type)
        }
    }

    func held(from address: String, ownerID: String) async throws -> [WebInboxHeldMessage] {
        guard try await principals.principal(ownerID: ownerID, address: address) != nil else { return [] }
        return try await jmap.heldMail(sender: address).map { held in
            WebInboxHeldMessage(
                id: held.entry.id, recipients: held.entry.recipients, createdAt: held.entry.createdAt,
                reason: held.reason)
        }
    }

    func release(_ id: String, from address: String, ownerID: String) async throws -> WebInboxRelease? {
        guard try await principals.principal(ownerID: ownerID, address: address) != nil,
            let outcome = try await jmap.releaseHeld(id: id, sender: address)
        else { return nil }
        return switch outcome {
        case .released: .released
        case .stillHeld(let reason): .stillHeld(reason)
        case .refused, .unrecorded: .refused
        case .senderNotLocal: nil
        }
    }

    /// The message of `draft`: plain text, its sent copy filed read in Sent, no longer a draft.
    static func message(_ draft: WebInboxDraft) -> SubmissionDraft {
        var message = SubmissionDraft(to: draft.to, subject: draft.subject, body: draft.body)
        message.inReplyTo = draft.inReplyTo
        message.references = draft.references
        message.filedAsRead = true
        return message
    }

    /// Why JMAP did not create the draft.
    static func draftRefusal(_ error: SetError) -> WebInboxSendRefusal.Reason {
        switch error.kind {
        case .invalidProperties where error.properties?.contains("to") == true: return .invalidAddress
        case .overQuota: return .overQuota
        default: return .unwritable
        }
    }

    /// Why the submission owner refused it, as the page says it.
    static func submissionRefusal(_ refusal: SubmissionRefusal) -> WebInboxSendRefusal.Reason {
        switch refusal {
        case .unknownRecipients(let addresses): .unknownRecipients(addresses)
        case .noRecipients: .noRecipients
        case .limit: .limitReached
        case .senderNotLocal, .foreignOriginator, .foreignMailFrom, .notWrittenBySender, .held: .notAllowed
        case .unreadableHeader, .tooLarge, .overQuota: .unwritable
        }
    }

    /// Where each recipient's copy went, from the status the ledger recorded (never the reply's words): kept in
    /// the outbox is ``DeliveryStatus/held(_:)``.
    static func report(_ recipients: [RecipientState]) -> WebInboxSendReport {
        var report = WebInboxSendReport()
        for recipient in recipients {
            switch recipient.status {
            case .delivered: report.delivered.append(recipient.address)
            case .queued, .deferred: report.queued.append(recipient.address)
            case .held(let reason):
                report.kept.append(recipient.address)
                report.heldReason = reason
            case .failed: report.undelivered.append(recipient.address)
            }
        }
        return report
    }

    /// Where each recipient's copy went when nothing was recorded (a JMAP service without a ledger), from the
    /// submission's `deliveryStatus`: `yes`, `queued`, and `no` (undelivered: without a ledger nothing tells a
    /// recipient kept in the outbox from one refused but the reply's words, which decide nothing).
    static func report(_ status: [(String, JSONValue)]) -> WebInboxSendReport {
        var report = WebInboxSendReport()
        for (address, state) in status {
            switch state["delivered"]?.stringValue {
            case "yes": report.delivered.append(address)
            case "queued": report.queued.append(address)
            default: report.undelivered.append(address)
            }
        }
        return report
    }
}
