import ClientAddress
import Directory
import JMAP
import MailDelivery
import JSON
import WebInbox

/// The web inbox's sender over JMAP: an owner's message is the `Email/set` draft and the `EmailSubmission/set` a JMAP
/// client sends (its `onSuccessUpdateEmail` files it in Sent, read), run in-process as the owner's inbox
/// (``OwnerPrincipals/principal(ownerID:address:)``). Every rule of sending is JMAP's: who the message says it is from,
/// which recipients exist, the per-sender limits on other domains, what leaves this server. A refused submission
/// destroys its draft again, so nothing is left behind.
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
        let responses = try await run(Self.calls(draft, principal), principal, client, requestID)
        if let failure = responses["c"]?.failure { throw Failure(type: failure) }
        if let refused = responses["c"]?.arguments["notCreated"]?["draft"] {
            throw WebInboxSendRefusal(Self.draftRefusal(refused))
        }
        let submission = responses["s"]
        guard let status = submission?.arguments["created"]?["send"]?["deliveryStatus"]?.objectValue else {
            // Nothing was sent: the draft goes again (the server's own cleanup, as MCP's send does). A cleanup that
            // fails leaves a draft in Drafts, which the owner sees and may delete; the refusal is what they are told.
            if let created = responses["c"]?.arguments["created"]?["draft"]?["id"] {
                let destroy: JSONValue = .object([("accountId", .string(principal.accountID)), ("destroy", [created])])
                _ = try? await run([["Email/set", destroy, "x"]], principal, client, requestID)
            }
            if let refused = submission?.arguments["notCreated"]?["send"] {
                throw WebInboxSendRefusal(Self.submissionRefusal(refused))
            }
            throw Failure(type: submission?.failure ?? "noSubmission")
        }
        guard let id = submission?.arguments["created"]?["send"]?["id"]?.stringValue,
            let recorded = try await jmap.recordedRecipients(accountID: principal.accountID, submissionID: id)
        else { return Self.report(status) }
        return Self.report(recorded)
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
        }
    }

    /// The calls: the draft in Drafts, its submission, and on success the draft filed in Sent, read, no longer a draft.
    static func calls(_ draft: WebInboxDraft, _ principal: Principal) -> [JSONValue] {
        let account = JSONValue.string(principal.accountID)
        func addresses(_ list: [String]) -> JSONValue { .array(list.map { .object([("email", .string($0))]) }) }
        var email: [(String, JSONValue)] = [
            ("mailboxIds", ["drafts": true]), ("keywords", ["$draft": true]),
            ("from", addresses([principal.mailbox.address])), ("to", addresses(draft.to)),
            ("subject", .string(draft.subject)), ("textBody", [["partId": "body", "type": "text/plain"]]),
            ("bodyValues", .object([("body", .object([("value", .string(draft.body))]))])),
        ]
        if !draft.inReplyTo.isEmpty { email.append(("inReplyTo", .array(draft.inReplyTo.map(JSONValue.string)))) }
        if !draft.references.isEmpty { email.append(("references", .array(draft.references.map(JSONValue.string)))) }
        let filed: JSONValue = .object([
            ("mailboxIds", ["sent": true]), ("keywords/$draft", .null), ("keywords/$seen", true),
        ])
        return [
            ["Email/set", .object([("accountId", account), ("create", .object([("draft", .object(email))]))]), "c"],
            [
                "EmailSubmission/set",
                .object([
                    ("accountId", account), ("create", .object([("send", .object([("emailId", "#draft")]))])),
                    ("onSuccessUpdateEmail", .object([("#send", filed)])),
                ]), "s",
            ],
        ]
    }

    /// Why JMAP did not create the draft.
    static func draftRefusal(_ error: JSONValue) -> WebInboxSendRefusal.Reason {
        let properties = error["properties"]?.arrayValue?.compactMap(\.stringValue) ?? []
        switch error["type"]?.stringValue {
        case "invalidProperties" where properties.contains("to"): return .invalidAddress
        case "overQuota": return .overQuota
        default: return .unwritable
        }
    }

    /// Why JMAP did not submit it.
    static func submissionRefusal(_ error: JSONValue) -> WebInboxSendRefusal.Reason {
        switch error["type"]?.stringValue {
        case "invalidRecipients":
            return .unknownRecipients(error["invalidRecipients"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        case "noRecipients": return .noRecipients
        case "forbiddenToSend": return .limitReached
        case "forbiddenFrom", "forbiddenMailFrom": return .notAllowed
        default: return .unwritable
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

    /// One method's answer: its arguments, or the type of its method-level error.
    struct Answer {
        var arguments: JSONValue
        var failure: String?
    }

    /// Runs `calls` as `principal`; each call's first answer (the method's own) by call id.
    /// - Throws: JMAP's refusals of the request; storage errors.
    private func run(
        _ calls: [JSONValue], _ principal: Principal, _ client: ClientAddressKey, _ requestID: String
    ) async throws -> [String: Answer] {
        let envelope: JSONValue = .object([
            ("using", ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail", "urn:ietf:params:jmap:submission"]),
            ("methodCalls", .array(calls)),
        ])
        let response = try await jmap.run(envelope, as: principal, client: client, requestID: requestID)
        var byID: [String: Answer] = [:]
        for item in response["methodResponses"]?.arrayValue ?? [] {
            guard let parts = item.arrayValue, parts.count == 3, let id = parts[2].stringValue, byID[id] == nil
            else { continue }
            let failure = parts[0].stringValue == "error" ? parts[1]["type"]?.stringValue ?? "error" : nil
            byID[id] = Answer(arguments: parts[1], failure: failure)
        }
        return byID
    }
}
