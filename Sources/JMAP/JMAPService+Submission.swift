import Directory
import EmailAddresses
import Foundation
import JSON
import MIME
import MailDelivery
import MailStore
import SMTPOutcomes
import ServerKit
import Time

extension JMAPService {
    /// `EmailSubmission/set` (RFC 8621 section 7.5), create only: each submission is final at once. Local
    /// recipients get the message in their inbox now; recipients on other domains are queued through the ledger, or
    /// kept in the operator's outbox (`postern mail outbox`), and each such recipient's `deliveryStatus` says which.
    /// The envelope used (the client's, or the sender and the email's To, Cc and Bcc) is kept and given back.
    /// The submitted message ends in the sender's Sent mailbox. `onSuccessUpdateEmail` and
    /// `onSuccessDestroyEmail` answer with an implicit `Email/set`.
    func submissionSet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> [(String, JSONValue)] {
        let oldState = try await stateBeforeSet(arguments, call)
        let create = try arguments.object("create") ?? []
        try checkSetSize(create.count)
        var response = SetResponse()
        var submittedEmails: [String: String] = [:]  // submission id → email id
        for (creationID, value) in create {
            do {
                guard let object = value.objectValue else {
                    throw SetError.invalidProperties("An EmailSubmission must be an object.", [])
                }
                let (submission, emailID) = try await submit(JMAPArguments(pairs: object), call)
                let id = submission["id"]?.stringValue ?? ""
                call.createdIDs[creationID] = id
                submittedEmails[id] = emailID
                response.created.append((creationID, submission))
            } catch let error as SetError {
                response.notCreated.append((creationID, error.json))
            }
        }
        let final = SetError(.cannotUnsend, description: "Submissions are final at once.").json
        for (id, _) in try arguments.object("update") ?? [] { response.notUpdated.append((id, final)) }
        for id in try arguments.strings("destroy") ?? [] { response.notDestroyed.append((id, final)) }
        // The submissions' own changes are to the submitted emails (moved to Sent).
        let states = try await statesAfterSet(before: oldState, touched: Set(submittedEmails.values), call)
        var responses: [(String, JSONValue)] = [
            ("EmailSubmission/set", response.json(accountID: call.account.id, states: states))
        ]
        if let implicit = try await onSuccess(arguments, submittedEmails, call) {
            responses.append(("Email/set", implicit))
        }
        return responses
    }

    /// The implicit `Email/set` of `onSuccessUpdateEmail` / `onSuccessDestroyEmail`, nil when neither applies.
    /// A principal that may send but not change mail (an OAuth `mail.send` grant) may only finish the send
    /// (``finishesSending(_:keywords:_:)``: drop `$draft`, keep the email in Sent); any other update and every
    /// destroy is `forbidden`, since the scope check before the request sees `EmailSubmission/set` only.
    private func onSuccess(_ arguments: JMAPArguments, _ submitted: [String: String], _ call: JMAPCall) async throws
        -> JSONValue?
    {
        let updates = try arguments.object("onSuccessUpdateEmail") ?? []
        let destroys = try arguments.strings("onSuccessDestroyEmail") ?? []
        guard !updates.isEmpty || !destroys.isEmpty else { return nil }
        let oldState = try await state(call)
        let mayChange = call.account.permissions.isSuperset(of: Self.changingMailNeeds)
        var response = SetResponse()
        for (key, patch) in updates {
            guard let submission = call.id(key), let emailID = submitted[submission] else { continue }
            if !mayChange, try await !finishesSending(emailID, patch, call) {
                response.notUpdated.append((emailID, Self.onlySending.json))
                continue
            }
            try await applyEmailUpdate(key: emailID, id: emailID, patch, into: &response, call)
        }
        for key in destroys {
            guard let submission = call.id(key), let emailID = submitted[submission] else { continue }
            guard mayChange else {
                response.notDestroyed.append((emailID, Self.onlySending.json))
                continue
            }
            if try await store.delete(address: call.account.address, id: emailID) {
                response.destroyed.append(.string(emailID))
            }
        }
        let states = try await statesAfterSet(before: oldState, touched: response.touchedIDs, call)
        return response.json(accountID: call.account.id, states: states)
    }

    /// Sends one message: checks that the account's own address is still a local mailbox, the identity and the
    /// envelope, delivers to local recipients, keeps the rest in the outbox, moves the message to Sent. Returns the
    /// EmailSubmission object and the email id.
    private func submit(_ properties: JMAPArguments, _ call: JMAPCall) async throws -> (JSONValue, String) {
        let account = call.account
        // An address on a custom domain is the account's only while its holder holds the domain verified; once it
        // is not local (the domain deleted, lapsed or verified by someone else), nothing is sent as it.
        guard case .local = try await directory.resolve(account.address) else {
            throw SetError(
                .forbiddenFrom,
                description: "\(account.address) is no longer a mailbox of this server: nothing can be sent as it.")
        }
        guard let given = properties["emailId"]?.stringValue else {
            throw SetError.invalidProperties("`emailId` is required.", ["emailId"])
        }
        guard let emailID = call.id(given), let message = try await store.message(address: account.address, id: emailID),
            let raw = try await store.raw(address: account.address, id: emailID)
        else { throw SetError(.invalidEmail, description: "No email \(given) in this account.") }
        // Only what this account wrote is sent as it stands: a received message's header is someone else's (its From
        // among it); it is forwarded by a new message that carries or quotes it, never sent again as its bytes.
        let origin = try await store.origin(address: account.address, id: emailID)
        guard JMAPOutbound.maySubmit(origin, storedAt: account.address, as: account.address) else {
            throw SetError(
                .invalidEmail,
                description: "Email \(given) was received by this account, not written in it: send a new Email that "
                    + "quotes or attaches it instead.")
        }
        if let identity = properties["identityId"]?.stringValue, call.id(identity) != account.id {
            throw SetError.invalidProperties("The only identity of this account is \(account.id).", ["identityId"])
        }
        try checkOriginators(raw, account: account)
        // RFC 8621 section 7.5: without an envelope, the sender is the account (the From the rule above allows) and
        // the recipients are the To, Cc and Bcc of the email.
        var mailFrom = account.address
        var recipients = (message.to + message.cc + message.bcc).map { $0.email }
        if let envelope = properties.present("envelope") {
            guard let from = envelope["mailFrom"]?["email"]?.stringValue,
                let rcptTo = envelope["rcptTo"]?.arrayValue?.compactMap({ $0["email"]?.stringValue })
            else { throw SetError.invalidProperties("`envelope` has mailFrom and rcptTo addresses.", ["envelope"]) }
            // Compared as addresses (ASCII case only: a KELVIN SIGN is not a `k`).
            guard EmailAddress.same(from, account.address) else {
                throw SetError(.forbiddenMailFrom, description: "mailFrom must be \(account.address).")
            }
            mailFrom = from
            recipients = rcptTo
        }
        var seen = Set<String>()
        recipients = recipients.filter { seen.insert(EmailAddress.key($0)).inserted }
        guard !recipients.isEmpty else {
            throw SetError(.noRecipients, description: "The email and envelope name no recipient.")
        }
        let invalid = recipients.filter { !Self.isAddress($0) }
        var local: [Recipient] = []
        var foreign: [String] = []
        var unknown: [String] = invalid
        for address in recipients where Self.isAddress(address) {
            switch try await directory.resolve(address) {
            case .local(let recipient): local.append(recipient)
            case .foreign: foreign.append(address)
            case .unknown: unknown.append(address)
            }
        }
        if !unknown.isEmpty {
            var error = SetError(
                .invalidRecipients,
                description: "No such mailbox here: \(unknown.joined(separator: ", ")). Nothing was sent.")
            error.invalidRecipients = unknown
            throw error
        }

        let now = clock()
        let id = "S" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        // The envelope used, kept with the submission and given back (its recipients all valid and known by now).
        let envelope = SubmissionEnvelope(mailFrom: mailFrom, rcptTo: recipients)
        let record = try await record(
            id, local: local, foreign: foreign, raw: raw, message: message, envelope: envelope, outbound: outbound,
            call, now: now)
        let status = record.recipients.map { ($0.address, Self.deliveryStatus($0)) }
        let dsnBlobIDs = Self.dsnBlobIDs(record)
        if message.summary.folder != .sent {
            _ = try await store.update(
                address: account.address, id: emailID, keywords: message.summary.allKeywords, folder: .sent)
        }
        let submission: JSONValue = .object([
            ("id", .string(id)), ("identityId", .string(account.id)), ("emailId", .string(emailID)),
            ("threadId", .string(message.summary.threadID)), ("envelope", Self.envelopeJSON(envelope)),
            ("sendAt", .string(RFC3339.format(now))), ("undoStatus", "final"), ("deliveryStatus", .object(status)),
            ("dsnBlobIds", dsnBlobIDs),
            ("mdnBlobIds", .array([])),
        ])
        return (submission, emailID)
    }

    /// Outside recipients are queued when mail leaves this server and the sender may send outside
    /// (within its limits), else kept in the outbox; the local ones get the message now; then the submission is
    /// recorded with every recipient's disposition (the queued ones with the message, in one transaction).
    /// Returns the record.
    /// - Throws: `SetError` (nothing sent): `forbiddenToSend` when the outside recipients would pass a limit,
    ///   `tooLarge` when the message is larger than the queue takes, `overQuota` when the sender's messages waiting
    ///   in the queue and this one would pass its quota (checked here, not in the record's transaction: concurrent
    ///   submissions of one sender may pass it by a message each).
    private func record(
        _ id: String, local: [Recipient], foreign: [String], raw: [UInt8], message: MailMessageRecord,
        envelope: SubmissionEnvelope, outbound: JMAPOutbound, _ call: JMAPCall, now: Int64
    ) async throws -> SubmissionRecord {
        let account = call.account
        var held: HeldReason?
        var holder: SubmissionHolder?
        if !foreign.isEmpty {
            switch try await outbound.admit(
                sender: account.address, quota: account.quota, adding: foreign.count, raw: raw, now: now)
            {
            case .leaves(let answering): holder = answering
            case .held(let reason): held = reason
            }
        }
        var recipients: [SubmissionRecipient] = []
        let stored = try await delivery.deliverEach(raw, envelopeFrom: account.address, to: local)
        for (recipient, delivered) in zip(local, stored) {
            recipients.append(
                SubmissionRecipient(
                    address: recipient.address,
                    status: delivered
                        ? .delivered("250 2.0.0 delivered to the local mailbox")
                        : .failed("552 5.2.2 the mailbox is full")))
        }
        if let held, !foreign.isEmpty {
            _ = try await store.keepInOutbox(
                sender: account.address, recipients: foreign, raw: raw, now: now, submissionID: id)
            recipients += foreign.map { SubmissionRecipient(address: $0, status: .held(held)) }
        } else {
            recipients += foreign.map { SubmissionRecipient(address: $0, status: .queued) }
        }
        let submission = NewSubmission(
            id: id, accountID: account.id, sender: account.address, emailID: message.summary.id,
            threadID: message.summary.threadID, sendAt: now, holder: holder, recipients: recipients, content: raw,
            envelope: envelope)
        let record: SubmissionRecord
        do {
            record = try await outbound.ledger.record(submission, limits: outbound.limits, now: now)
        } catch let reached as SendLimitReached {
            // Another submission of the sender's took the last places since the check above.
            throw Self.forbiddenToSend(reached)
        }
        let delivered = stored.filter { $0 }.count
        onSubmission(
            SubmissionOutcome(
                delivered: delivered, keptInOutbox: held == nil ? 0 : foreign.count, refused: stored.count - delivered,
                queued: record.recipients.filter { $0.status == .queued }.count))
        return record
    }

    /// The SetError of a refusal by a limit (the sender's own, or the one all its owner's inboxes share), naming the
    /// limit, whose it is and when it frees.
    static func forbiddenToSend(_ reached: SendLimitReached) -> SetError {
        let whose =
            switch reached.limit.scope {
            case .sender: "per sender"
            case .holder: "for all the inboxes of this inbox's owner together"
            }
        return SetError(
            .forbiddenToSend,
            description: "The \(reached.limit.name) limit of \(reached.limit.count) recipients on other domains "
                + "\(whose) is reached; it frees by \(RFC3339.format(reached.freesAt)). Nothing was sent.")
    }

    /// The rule on who a message says it is from, over every `From`, `Sender` and `Reply-To` field of the raw
    /// message (not only the first of each), read strictly (``Originators``: a header with a bare CR, a bare LF or a
    /// NUL, or an address field some reader could take two ways, is refused, so what is checked is what every
    /// receiver reads): `From` names this account's address only, and `Sender`, when present, too, and so do
    /// `Resent-From` and `Resent-Sender` (issue 81: a draft an agent `APPEND`s may carry them). `Reply-To` may
    /// name addresses elsewhere (a list, a helpdesk), but no address of a domain served here other than the account's
    /// own: replies to another local mailbox, or to a name on a local domain that someone may register later, would
    /// let one account speak for another. The outbound preparer checks `From` and `Sender` again on the bytes that
    /// leave.
    /// - Throws: `SetError` `forbiddenFrom` (RFC 8621 7.5) naming the field; `invalidEmail` when the header
    ///   cannot be read strictly.
    private func checkOriginators(_ raw: [UInt8], account: JMAPAccount) throws(SetError) {
        let originators: Originators
        do {
            originators = try Originators(message: raw)
        } catch {
            throw SetError(.invalidEmail, description: "\(error) Nothing was sent.")
        }
        let own = { (address: MailAddress) in EmailAddress.same(address.email, account.address) }
        guard !originators.from.isEmpty, originators.from.allSatisfy(own) else {
            throw SetError(.forbiddenFrom, description: "The From of the email must be \(account.address).")
        }
        guard originators.sender.allSatisfy(own) else {
            throw SetError(.forbiddenFrom, description: "The Sender of the email must be \(account.address).")
        }
        guard originators.resentFrom.allSatisfy(own), originators.resentSender.allSatisfy(own) else {
            throw SetError(
                .forbiddenFrom,
                description: "The Resent-From and Resent-Sender of the email must be \(account.address).")
        }
        let directory = self.directory
        let elsewhere = { (address: MailAddress) in
            guard let at = address.email.lastIndex(of: "@") else { return true }
            return !directory.serves(domain: String(address.email[address.email.index(after: at)...]))
        }
        guard originators.replyTo.allSatisfy({ own($0) || elsewhere($0) }) else {
            throw SetError(
                .forbiddenFrom,
                description: "The Reply-To of the email may name \(account.address) or addresses elsewhere, "
                    + "not another mailbox here.")
        }
    }

    /// An envelope as RFC 8621 7's `Envelope`: each `Address` with `parameters` `null` (none is sent).
    static func envelopeJSON(_ envelope: SubmissionEnvelope) -> JSONValue {
        let address = { (email: String) -> JSONValue in .object([("email", .string(email)), ("parameters", .null)]) }
        return .object([("mailFrom", address(envelope.mailFrom)), ("rcptTo", .array(envelope.rcptTo.map(address)))])
    }

    static func deliveryStatus(_ reply: String, _ delivered: String) -> JSONValue {
        .object([("smtpReply", .string(reply)), ("delivered", .string(delivered)), ("displayed", "unknown")])
    }

    /// A recorded recipient's `deliveryStatus` (RFC 8621 7), from its status: `queued` while it waits (before an
    /// attempt or after a deferral), `yes` once delivered, `no` once failed or when kept in the outbox; the reply
    /// only shown. A held recipient also carries Postern's `heldReason` (``HeldReason/code``: `outbound_off`,
    /// `needs_owner`, `awaiting_approval`), which a client switches on rather than reading the reply.
    static func deliveryStatus(_ recipient: RecipientState) -> JSONValue {
        let delivered =
            switch recipient.status {
            case .queued, .deferred: "queued"
            case .delivered: "yes"
            case .failed, .held: "no"
            }
        guard case .held(let reason) = recipient.status else { return deliveryStatus(recipient.smtpReply, delivered) }
        return .object([
            ("smtpReply", .string(recipient.smtpReply)), ("delivered", .string(delivered)), ("displayed", "unknown"),
            ("heldReason", .string(reason.code)),
        ])
    }

    /// The recipients of the account's submission `id` as the ledger recorded them, each with its status: what an
    /// in-process sender (``send(_:as:client:requestID:)``) gives back to tell a recipient kept in the outbox from one
    /// refused. Nil when the account has no such submission.
    /// - Throws: storage errors.
    func recordedRecipients(accountID: String, submissionID: String) async throws -> [RecipientState]? {
        try await outbound.ledger.submissions(accountID: accountID, ids: [submissionID]).first?.recipients
    }
}
