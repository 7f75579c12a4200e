import Directory
import EmailAddresses
import Foundation
import MIME
import MailDelivery
import MailStore
import SMTPOutcomes

/// The one owner of a submission, whichever door it came by (JMAP's `EmailSubmission/set`, and through it the web
/// inbox and MCP; Mailpit's release; the SMTP submission listener). ``submit(_:now:)`` runs, in this order:
///
/// 1. the message: only one its sender wrote in its own mailbox is sent as it stands (``OutboundAdmission/maySubmit``),
///    or one the door hands over to keep in the sender's Sent (``SubmissionRequest/SenderCopy/keepInSent(_:)``);
/// 2. the sender: its address is still a mailbox of this server (the directory answers now, not when the door
///    signed it in);
/// 3. who the message says it is from (``checkOriginators(_:sender:)``) and the envelope's sender;
/// 4. the recipients: repeats dropped, each an address, local or on another domain, none unknown here;
/// 5. the admission of the recipients on other domains (``OutboundAdmission/admit``): held for a reason (kept in the
///    outbox or refused, as the request says), or within the send limits, the size limit and the sender's quota;
/// 6. the record, one write transaction (``SubmissionLedger/record(limits:now:writing:)``): the sender's copy kept in
///    Sent when the door handed one over (against the sender's quota), a copy for each local recipient, held
///    recipients kept in the outbox, and the ledger's record of every recipient's disposition (the queued ones with
///    the message), which checks the limits again: of two concurrent submissions racing for the last places, the
///    loser is refused with ``SubmissionRefusal/limit(_:)``.
///
/// The message is parsed once (the door's parse, or here for a stored one), and every copy is stored from that parse.
/// Every refusal is a ``SubmissionRefusal``, raised before anything is delivered, kept or recorded; a refusal or a
/// failure of the transaction (6) leaves nothing of the submission behind, the sender's copy kept in Sent included
/// (its quota refusal is the store's ``MailStoreError/quotaExceeded(address:)``). The door keeps what is its own:
/// JMAP its drafts and the move to Sent, Mailpit its message lookup, each its words for a refusal.
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
    /// - Throws: ``SubmissionRefusal`` (nothing sent); ``MailStoreError/quotaExceeded(address:)`` when the sender's
    ///   copy to keep in Sent would pass its quota; ``LocalDeliveryError/unreadable(_:)`` when a stored message passes
    ///   a MIME limit; storage errors. Nothing of the submission is kept when it throws.
    public func submit(_ request: SubmissionRequest, now: Int64) async throws -> Submitted {
        let sender = request.sender
        if case .stored(let emailID, _) = request.copy {
            guard let stored = try await store.address(ofMessage: emailID),
                OutboundAdmission.maySubmit(
                    try await store.origin(address: stored, id: emailID), storedAt: stored, as: sender)
            else { throw SubmissionRefusal.notWrittenBySender(messageID: emailID) }
        }
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

        let (held, holder) = try await admit(foreign, of: request, quota: account.quota, now: now)
        let message: NewMailMessage
        switch request.copy {
        case .keepInSent(let parsed): message = parsed
        case .stored: message = try delivery.message(request.raw, envelopeFrom: sender)
        }
        let id = "S" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let envelope = SubmissionEnvelope(mailFrom: request.mailFrom, rcptTo: recipients)
        let accountID = request.accountID ?? account.accountID ?? account.address
        let (copy, store, delivery, raw) = (request.copy, store, delivery, request.raw)
        let record: SubmissionRecord
        do {
            record = try await admission.ledger.record(limits: admission.limits, now: now) { connection in
                let (emailID, threadID) =
                    switch copy {
                    case .stored(let emailID, let threadID): (emailID, threadID)
                    case .keepInSent:
                        try store.save(
                            message, address: sender, quota: account.quota, folder: .sent, keywords: ["$seen"],
                            now: now, on: connection)
                    }
                let copies = try delivery.deliverEach(message, to: local, now: now, on: connection)
                var states = zip(local, copies).map { recipient, delivered in
                    SubmissionRecipient(
                        address: recipient.address,
                        status: delivered
                            ? .delivered("250 2.0.0 delivered to the local mailbox")
                            : .failed("552 5.2.2 the mailbox is full"))
                }
                if let held {
                    _ = try store.keepInOutbox(
                        sender: sender, recipients: foreign, raw: raw, now: now, submissionID: id, on: connection)
                    states += foreign.map { SubmissionRecipient(address: $0, status: .held(held)) }
                } else {
                    states += foreign.map { SubmissionRecipient(address: $0, status: .queued) }
                }
                return NewSubmission(
                    id: id, accountID: accountID, sender: sender, emailID: emailID, threadID: threadID, sendAt: now,
                    holder: holder, recipients: states, content: raw, envelope: envelope)
            }
        } catch let reached as SendLimitReached {
            // Another submission of the sender's (or its owner's) took the last places since the admission.
            throw SubmissionRefusal.limit(reached)
        }
        let kept: [String] = if case .keepInSent = copy { [sender] } else { [] }
        store.changes.announce(kept + local.map(\.address))
        // The local recipients come first, in order: those recorded failed had a full mailbox.
        let undelivered = record.recipients.prefix(local.count).count {
            if case .failed = $0.status { true } else { false }
        }
        return Submitted(record: record, envelope: envelope, undelivered: undelivered)
    }

    /// The admission of `request`'s recipients on other domains, `foreign` (none: nothing to admit): why they are held,
    /// or who answers for them when they leave.
    /// - Throws: ``SubmissionRefusal/held(_:)`` when they are held and the request refuses then; the admission's.
    private func admit(_ foreign: [String], of request: SubmissionRequest, quota: Int64, now: Int64) async throws
        -> (held: HeldReason?, holder: SubmissionHolder?)
    {
        guard !foreign.isEmpty else { return (nil, nil) }
        switch try await admission.admit(
            sender: request.sender, quota: quota, adding: foreign.count, raw: request.raw, now: now)
        {
        case .leaves(let answering): return (nil, answering)
        case .held(let reason) where request.whenHeld == .refuse: throw SubmissionRefusal.held(reason)
        case .held(let reason): return (reason, nil)
        }
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
