import Directory
import EmailAddresses
import Foundation
import MIME
import MailDelivery
import MailStore
import SMTPOutcomes

/// The one owner of a submission, whichever door it came by (JMAP's `EmailSubmission/set`, and through it the web
/// inbox and MCP; Mailpit's release; the SMTP submission listener to come). ``submit(_:now:)`` runs, in this order:
///
/// 1. the message: only one its sender wrote in its own mailbox is sent as it stands (``OutboundAdmission/maySubmit``);
/// 2. the sender: its address is still a mailbox of this server (the directory answers now, not when the door
///    signed it in);
/// 3. who the message says it is from (``checkOriginators(_:sender:)``) and the envelope's sender;
/// 4. the recipients: repeats dropped, each an address, local or on another domain, none unknown here;
/// 5. the admission of the recipients on other domains (``OutboundAdmission/admit``): held for a reason (kept in the
///    outbox or refused, as the request says), or within the send limits, the size limit and the sender's quota;
/// 6. the record: local recipients get the message now, held ones are kept in the outbox, then the ledger records
///    every recipient's disposition (the queued ones with the message) in one transaction that checks the limits
///    again: of two concurrent submissions racing for the last places, the loser is refused with
///    ``SubmissionRefusal/limit(_:)``.
///
/// Every refusal is a ``SubmissionRefusal``, raised before anything is delivered, kept or recorded, except the race's
/// (6): its local recipients have their copy by then. The door keeps what is its own: JMAP its drafts and the move to
/// Sent, Mailpit its message lookup, each its words for a refusal.
public struct Submitter: Sendable {
    /// The admission of recipients on other domains, and the ledger.
    public let admission: OutboundAdmission
    /// Local delivery of the message to recipients here, over the directory and the store the submission reads.
    public let delivery: LocalDelivery

    /// - Parameters: see the properties.
    public init(admission: OutboundAdmission, delivery: LocalDelivery) {
        self.admission = admission
        self.delivery = delivery
    }

    /// Which addresses are local (the sender's, the recipients', the domains of `Reply-To`): local delivery's.
    var directory: any AccountDirectory { delivery.directory }
    /// The stored message's origin, and the outbox: local delivery's store.
    var store: MailStore { delivery.store }

    /// Submits `request` (the steps above).
    /// - Parameter now: Unix seconds, the submission's `sendAt` and the limits' clock.
    /// - Returns: the record and where each recipient's copy went.
    /// - Throws: ``SubmissionRefusal`` (nothing sent, but for the race of step 6); storage errors.
    public func submit(_ request: SubmissionRequest, now: Int64) async throws -> Submitted {
        let sender = request.sender
        guard let stored = try await store.address(ofMessage: request.emailID),
            OutboundAdmission.maySubmit(
                try await store.origin(address: stored, id: request.emailID), storedAt: stored, as: sender)
        else { throw SubmissionRefusal.notWrittenBySender(messageID: request.emailID) }
        guard case .local(let account) = try await directory.resolve(sender) else {
            throw SubmissionRefusal.senderNotLocal(sender)
        }
        try checkOriginators(request.raw, sender: sender)
        guard EmailAddress.same(request.mailFrom, sender) else {
            throw SubmissionRefusal.foreignMailFrom(sender: sender)
        }
        var seen = Set<String>()
        let recipients = request.recipients.filter { seen.insert(EmailAddress.key($0)).inserted }
        guard !recipients.isEmpty else { throw SubmissionRefusal.noRecipients }
        let (local, foreign) = try await resolve(recipients)

        var held: HeldReason?
        var holder: SubmissionHolder?
        if !foreign.isEmpty {
            switch try await admission.admit(
                sender: sender, quota: account.quota, adding: foreign.count, raw: request.raw, now: now)
            {
            case .leaves(let answering): holder = answering
            case .held(let reason) where request.whenHeld == .refuse: throw SubmissionRefusal.held(reason)
            case .held(let reason): held = reason
            }
        }
        let id = "S" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let envelope = SubmissionEnvelope(mailFrom: request.mailFrom, rcptTo: recipients)
        var states: [SubmissionRecipient] = []
        let copies = try await delivery.deliverEach(request.raw, envelopeFrom: sender, to: local)
        for (recipient, delivered) in zip(local, copies) {
            states.append(
                SubmissionRecipient(
                    address: recipient.address,
                    status: delivered
                        ? .delivered("250 2.0.0 delivered to the local mailbox")
                        : .failed("552 5.2.2 the mailbox is full")))
        }
        if let held, !foreign.isEmpty {
            _ = try await store.keepInOutbox(
                sender: sender, recipients: foreign, raw: request.raw, now: now, submissionID: id)
            states += foreign.map { SubmissionRecipient(address: $0, status: .held(held)) }
        } else {
            states += foreign.map { SubmissionRecipient(address: $0, status: .queued) }
        }
        let submission = NewSubmission(
            id: id, accountID: request.accountID ?? account.accountID ?? account.address, sender: sender,
            emailID: request.emailID, threadID: request.threadID, sendAt: now, holder: holder, recipients: states,
            content: request.raw, envelope: envelope)
        let record: SubmissionRecord
        do {
            record = try await admission.ledger.record(submission, limits: admission.limits, now: now)
        } catch let reached as SendLimitReached {
            // Another submission of the sender's (or its owner's) took the last places since the admission.
            throw SubmissionRefusal.limit(reached)
        }
        return Submitted(record: record, envelope: envelope, undelivered: copies.count { !$0 })
    }

    /// `recipients` as local mailboxes and addresses on other domains.
    /// - Throws: ``SubmissionRefusal/unknownRecipients(_:)`` naming those that are not addresses, then those on a
    ///   domain served here with no mailbox; storage errors.
    func resolve(_ recipients: [String]) async throws -> (local: [Recipient], foreign: [String]) {
        var local: [Recipient] = []
        var foreign: [String] = []
        var unknown = recipients.filter { !AddressListParser.isPlainAddress($0) }
        for address in recipients where AddressListParser.isPlainAddress(address) {
            switch try await directory.resolve(address) {
            case .local(let recipient): local.append(recipient)
            case .foreign: foreign.append(address)
            case .unknown: unknown.append(address)
            }
        }
        guard unknown.isEmpty else { throw SubmissionRefusal.unknownRecipients(unknown) }
        return (local, foreign)
    }

    /// The rule on who a message says it is from, over every `From`, `Sender` and `Reply-To` field of the raw
    /// message (not only the first of each), read strictly (``Originators``: a header with a bare CR, a bare LF or a
    /// NUL, or an address field some reader could take two ways, is refused, so what is checked is what every
    /// receiver reads): `From` names the sender's address only, and `Sender`, when present, too, and so do
    /// `Resent-From` and `Resent-Sender` (issue 81: a draft an agent `APPEND`s may carry them). `Reply-To` may name
    /// addresses elsewhere (a list, a helpdesk), but no address of a domain served here other than the sender's own:
    /// replies to another local mailbox, or to a name on a local domain that someone may register later, would let
    /// one account speak for another. The outbound preparer checks `From` and `Sender` again on the bytes that leave.
    /// - Throws: ``SubmissionRefusal/foreignOriginator(_:sender:)`` naming the field;
    ///   ``SubmissionRefusal/unreadableHeader(_:)`` when the header cannot be read strictly.
    func checkOriginators(_ raw: [UInt8], sender: String) throws(SubmissionRefusal) {
        let originators: Originators
        do {
            originators = try Originators(message: raw)
        } catch {
            throw .unreadableHeader(error)
        }
        let own = { (address: MailAddress) in EmailAddress.same(address.email, sender) }
        guard !originators.from.isEmpty, originators.from.allSatisfy(own) else {
            throw .foreignOriginator(.from, sender: sender)
        }
        guard originators.sender.allSatisfy(own) else { throw .foreignOriginator(.sender, sender: sender) }
        guard originators.resentFrom.allSatisfy(own), originators.resentSender.allSatisfy(own) else {
            throw .foreignOriginator(.resent, sender: sender)
        }
        let directory = self.directory
        let elsewhere = { (address: MailAddress) in
            guard let at = address.email.lastIndex(of: "@") else { return true }
            return !directory.serves(domain: String(address.email[address.email.index(after: at)...]))
        }
        guard originators.replyTo.allSatisfy({ own($0) || elsewhere($0) }) else {
            throw .foreignOriginator(.replyTo, sender: sender)
        }
    }
}
