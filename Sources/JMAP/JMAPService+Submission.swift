import Foundation
import JWT
import MIME
import MailDelivery
import MailStore
import ServerKit

extension JMAPService {
    /// `EmailSubmission/set` (RFC 8621 section 7.5), create only: each submission is final at once. Local
    /// recipients get the message in their inbox now; recipients on other domains are not sent to: the message is
    /// kept in the operator's outbox (`postern mail outbox`) and each such recipient's `deliveryStatus` says so.
    /// The submitted message ends in the sender's Sent mailbox. `onSuccessUpdateEmail` and
    /// `onSuccessDestroyEmail` answer with an implicit `Email/set`.
    func submissionSet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> [(String, JSONValue)] {
        let oldState = try await state(call)
        if let expected = try arguments.string("ifInState"), .string(expected) != oldState {
            throw MethodError("stateMismatch", "The account's state is no longer \(expected).")
        }
        let create = try arguments.object("create") ?? []
        guard create.count <= configuration.maxObjectsInSet else {
            throw MethodError("requestTooLarge", "At most \(configuration.maxObjectsInSet) objects in one /set.")
        }
        var created: [(String, JSONValue)] = [], notCreated: [(String, JSONValue)] = []
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
                created.append((creationID, submission))
            } catch let error as SetError {
                notCreated.append((creationID, error.json))
            }
        }
        var notUpdated: [(String, JSONValue)] = [], notDestroyed: [(String, JSONValue)] = []
        for (id, _) in try arguments.object("update") ?? [] {
            notUpdated.append((id, SetError(type: "cannotUnsend", description: "Submissions are final at once.").json))
        }
        for id in try arguments.strings("destroy") ?? [] {
            notDestroyed.append((id, SetError(type: "cannotUnsend", description: "Submissions are final at once.").json))
        }
        var responses: [(String, JSONValue)] = [
            ("EmailSubmission/set", .object([
                ("accountId", .string(call.account.id)), ("oldState", oldState), ("newState", try await state(call)),
                ("created", created.isEmpty ? .null : .object(created)), ("updated", .null), ("destroyed", .null),
                ("notCreated", notCreated.isEmpty ? .null : .object(notCreated)),
                ("notUpdated", notUpdated.isEmpty ? .null : .object(notUpdated)),
                ("notDestroyed", notDestroyed.isEmpty ? .null : .object(notDestroyed)),
            ]))
        ]
        if let implicit = try await onSuccess(arguments, submittedEmails, call) {
            responses.append(("Email/set", implicit))
        }
        return responses
    }

    /// The implicit `Email/set` of `onSuccessUpdateEmail` / `onSuccessDestroyEmail`, nil when neither applies.
    private func onSuccess(_ arguments: JMAPArguments, _ submitted: [String: String], _ call: JMAPCall) async throws
        -> JSONValue?
    {
        let updates = try arguments.object("onSuccessUpdateEmail") ?? []
        let destroys = try arguments.strings("onSuccessDestroyEmail") ?? []
        guard !updates.isEmpty || !destroys.isEmpty else { return nil }
        let oldState = try await state(call)
        var updated: [(String, JSONValue)] = [], notUpdated: [(String, JSONValue)] = []
        for (key, patch) in updates {
            guard let submission = call.id(key), let emailID = submitted[submission] else { continue }
            guard let object = patch.objectValue else {
                notUpdated.append((emailID, SetError.invalidProperties("A patch must be an object.", []).json))
                continue
            }
            if let error = try await updateEmail(emailID, object, call) {
                notUpdated.append((emailID, error.json))
            } else {
                updated.append((emailID, .null))
            }
        }
        var destroyed: [JSONValue] = []
        for key in destroys {
            guard let submission = call.id(key), let emailID = submitted[submission] else { continue }
            if try await store.delete(address: call.account.address, id: emailID) { destroyed.append(.string(emailID)) }
        }
        return .object([
            ("accountId", .string(call.account.id)), ("oldState", oldState), ("newState", try await state(call)),
            ("created", .null), ("updated", updated.isEmpty ? .null : .object(updated)),
            ("destroyed", destroyed.isEmpty ? .null : .array(destroyed)), ("notCreated", .null),
            ("notUpdated", notUpdated.isEmpty ? .null : .object(notUpdated)), ("notDestroyed", .null),
        ])
    }

    /// Sends one message: checks the identity and envelope, delivers to local recipients, keeps the rest in the
    /// outbox, moves the message to Sent. Returns the EmailSubmission object and the email id.
    private func submit(_ properties: JMAPArguments, _ call: JMAPCall) async throws -> (JSONValue, String) {
        let account = call.account
        guard let given = properties["emailId"]?.stringValue else {
            throw SetError.invalidProperties("`emailId` is required.", ["emailId"])
        }
        guard let emailID = call.id(given), let message = try await store.message(address: account.address, id: emailID),
            let raw = try await store.raw(address: account.address, id: emailID)
        else { throw SetError(type: "invalidEmail", description: "No email \(given) in this account.") }
        if let identity = properties["identityId"]?.stringValue, call.id(identity) != account.id {
            throw SetError.invalidProperties("The only identity of this account is \(account.id).", ["identityId"])
        }
        guard message.summary.from.allSatisfy({ $0.email.lowercased() == account.address }),
            !message.summary.from.isEmpty
        else {
            throw SetError(type: "forbiddenFrom", description: "The From of the email must be \(account.address).")
        }
        // RFC 8621 section 7.5: without an envelope, the recipients are the To, Cc and Bcc of the email.
        var recipients = (message.to + message.cc + message.bcc).map { $0.email }
        if let envelope = properties.present("envelope") {
            guard let from = envelope["mailFrom"]?["email"]?.stringValue,
                let rcptTo = envelope["rcptTo"]?.arrayValue?.compactMap({ $0["email"]?.stringValue })
            else { throw SetError.invalidProperties("`envelope` has mailFrom and rcptTo addresses.", ["envelope"]) }
            guard from.lowercased() == account.address else {
                throw SetError(type: "forbiddenMailFrom", description: "mailFrom must be \(account.address).")
            }
            recipients = rcptTo
        }
        var seen = Set<String>()
        recipients = recipients.filter { seen.insert($0.lowercased()).inserted }
        guard !recipients.isEmpty else {
            throw SetError(type: "noRecipients", description: "The email and envelope name no recipient.")
        }
        let invalid = recipients.filter { !Self.isAddress($0) }
        var local: [MailStore.Recipient] = []
        var foreign: [String] = []
        var unknown: [String] = invalid
        for address in recipients where Self.isAddress(address) {
            switch try await mailboxes.resolve(address) {
            case .local(let recipient): local.append(recipient)
            case .foreign: foreign.append(address)
            case .unknown: unknown.append(address)
            }
        }
        if !unknown.isEmpty {
            var error = SetError(
                type: "invalidRecipients",
                description: "No such mailbox here: \(unknown.joined(separator: ", ")). Nothing was sent.")
            error.invalidRecipients = unknown
            throw error
        }

        let now = clock()
        var status: [(String, JSONValue)] = []
        var outcome = SubmissionOutcome(delivered: 0, keptInOutbox: 0, refused: 0)
        let parsed = try? MIMEParser.parse(raw, limits: MIMELimits(maximumMessageBytes: max(raw.count, 1)))
        let record = LocalDelivery.message(parsed ?? ParsedMessage(), envelopeFrom: account.address, raw: raw)
        for recipient in local {
            do {
                _ = try await store.deliver(record, to: [recipient], folder: .inbox, now: now)
                status.append((recipient.address, Self.deliveryStatus("250 2.0.0 delivered to the local mailbox", "yes")))
                outcome.delivered += 1
            } catch MailStoreError.quotaExceeded {
                status.append((recipient.address, Self.deliveryStatus("552 5.2.2 the mailbox is full", "no")))
                outcome.refused += 1
            }
        }
        if !foreign.isEmpty {
            _ = try await store.keepInOutbox(sender: account.address, recipients: foreign, raw: raw, now: now)
            for address in foreign {
                status.append((address, Self.deliveryStatus(
                    "250 2.0.0 kept in this server's outbox: Postern does not send mail to other domains", "no")))
            }
            outcome.keptInOutbox += foreign.count
        }
        onSubmission(outcome)
        if message.summary.folder != .sent {
            var keywords = Set(message.summary.keywords)
            if message.summary.isRead { keywords.insert("$seen") }
            _ = try await store.update(address: account.address, id: emailID, keywords: keywords, folder: .sent)
        }
        let id = "S" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let submission: JSONValue = .object([
            ("id", .string(id)), ("identityId", .string(account.id)), ("emailId", .string(emailID)),
            ("threadId", .string(message.summary.threadID)), ("sendAt", .string(RFC3339.format(now))),
            ("undoStatus", "final"), ("deliveryStatus", .object(status)), ("dsnBlobIds", .array([])),
            ("mdnBlobIds", .array([])),
        ])
        return (submission, emailID)
    }

    private static func deliveryStatus(_ reply: String, _ delivered: String) -> JSONValue {
        .object([("smtpReply", .string(reply)), ("delivered", .string(delivered)), ("displayed", "unknown")])
    }
}
