import Directory
import EmailAddresses
import Foundation
import JSON
import MIME
import MailDelivery
import MailStore
import MailSubmission
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
                let (submission, emailID) = try await submit(JMAPArguments(pairs: object), creationID, call)
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

    /// Sends one message: reads the submission's `emailId`, `identityId` and `envelope` (RFC 8621 section 7.5), hands
    /// the rest to the one ``Submitter`` (the message written here, the account's address still local, who the
    /// message says it is from, the recipients, the admission of those on other domains, local delivery, the outbox
    /// and the ledger), then moves the message to Sent. Returns the EmailSubmission object and the email id.
    /// - Throws: `SetError`: JMAP's own for the properties, else the Submitter's refusal
    ///   (``SetError/init(_:emailID:)``), kept typed in `call` under `creationID` too.
    private func submit(_ properties: JMAPArguments, _ creationID: String, _ call: JMAPCall) async throws
        -> (JSONValue, String)
    {
        let account = call.account
        guard let given = properties["emailId"]?.stringValue else {
            throw SetError.invalidProperties("`emailId` is required.", ["emailId"])
        }
        guard let emailID = call.id(given), let message = try await store.message(address: account.address, id: emailID),
            let raw = try await store.raw(address: account.address, id: emailID)
        else { throw SetError(.invalidEmail, description: "No email \(given) in this account.") }
        if let identity = properties["identityId"]?.stringValue, call.id(identity) != account.id {
            throw SetError.invalidProperties("The only identity of this account is \(account.id).", ["identityId"])
        }
        // RFC 8621 section 7.5: without an envelope, the sender is the account (the From the rule allows) and the
        // recipients are the To, Cc and Bcc of the email.
        var request = SubmissionRequest(
            sender: account.address, emailID: emailID, threadID: message.summary.threadID, raw: raw,
            recipients: (message.to + message.cc + message.bcc).map { $0.email }, accountID: account.id)
        if let envelope = properties.present("envelope") {
            guard let from = envelope["mailFrom"]?["email"]?.stringValue,
                let rcptTo = envelope["rcptTo"]?.arrayValue?.compactMap({ $0["email"]?.stringValue })
            else { throw SetError.invalidProperties("`envelope` has mailFrom and rcptTo addresses.", ["envelope"]) }
            request.mailFrom = from
            request.recipients = rcptTo
        }
        let now = clock()
        let submitted: Submitted
        do {
            submitted = try await submitter.submit(request, now: now)
        } catch let refusal as SubmissionRefusal {
            call.submissionRefusals[creationID] = refusal
            throw SetError(refusal, emailID: given)
        }
        let record = submitted.record
        await onSubmission(
            SubmissionOutcome(
                delivered: submitted.delivered, keptInOutbox: submitted.kept, refused: submitted.undelivered,
                queued: submitted.queued, submissionID: record.id, sender: account.address,
                client: call.client.description, delegation: account.delegation))
        let status = record.recipients.map { ($0.address, Self.deliveryStatus($0)) }
        let dsnBlobIDs = Self.dsnBlobIDs(record)
        if message.summary.folder != .sent {
            _ = try await store.update(
                address: account.address, id: emailID, keywords: message.summary.allKeywords, folder: .sent)
        }
        let submission: JSONValue = .object([
            ("id", .string(record.id)), ("identityId", .string(account.id)), ("emailId", .string(emailID)),
            ("threadId", .string(message.summary.threadID)), ("envelope", Self.envelopeJSON(submitted.envelope)),
            ("sendAt", .string(RFC3339.format(now))), ("undoStatus", "final"), ("deliveryStatus", .object(status)),
            ("dsnBlobIds", dsnBlobIDs),
            ("mdnBlobIds", .array([])),
        ])
        return (submission, emailID)
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
