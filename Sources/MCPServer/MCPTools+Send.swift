import Directory
import EmailAddresses
import JMAP
import JSON
import MailSubmission
import SMTPOutcomes

/// The sending tools: send_email, reply_to_message, run_preset, jmap_request. A message is sent by
/// ``JMAPService/send(_:as:client:requestID:)``, the Email/set draft and EmailSubmission/set a JMAP client sends.
extension MCPTools {
    /// The message of send_email's (or a send preset's) arguments.
    static func draft(_ arguments: MCPToolArguments) -> SubmissionDraft {
        var message = SubmissionDraft(
            to: arguments.addresses("to"), subject: arguments.string("subject") ?? "",
            body: arguments.string("body") ?? "")
        message.cc = arguments.addresses("cc")
        message.bcc = arguments.addresses("bcc")
        message.attachments = arguments.attachments()
        return message
    }

    /// Sends `message` through JMAP's one in-process sender; what was sent and to whom it was delivered.
    /// - Throws: ``MCPTools/Failure`` naming what JMAP refused (an attachment, the draft, a recipient); a draft
    ///   whose submission was refused is destroyed again, so a refused send leaves nothing behind.
    func send(_ message: SubmissionDraft, _ call: Call) async throws -> JSONValue {
        let sent: SentMessage
        do {
            sent = try await jmap.send(message, as: call.principal, client: call.client, requestID: call.requestID)
        } catch SendFailure.refused(_, let error) {
            throw Failure(
                error.refusal.map(Self.words) ?? "\(error.kind.rawValue): \(error.description) Nothing was sent.")
        } catch SendFailure.failed(_, let type, let description) {
            throw Failure("\(type): \(description)")
        }
        let recipients = Self.recipients(sent.deliveryStatus)
        return .object([
            ("sent", .bool(recipients.allSatisfy { $0.outcome == .delivered || $0.outcome == .queued })),
            ("email_id", .string(sent.emailID)), ("thread_id", .string(sent.threadID)),
            ("recipients", .array(recipients.map(\.json))), ("delivery", sent.deliveryStatus),
        ])
    }

    /// A submission the owner refused, in the tool's words: a code the model may act on (fix the recipients, wait for
    /// a limit, shorten the message), then why, for display.
    static func words(_ refusal: SubmissionRefusal) -> String {
        let code =
            switch refusal {
            case .notWrittenBySender: "not_written_here"
            case .senderNotLocal: "sender_not_local"
            case .unreadableHeader: "unreadable_header"
            case .foreignOriginator: "foreign_originator"
            case .foreignMailFrom: "foreign_mail_from"
            case .noRecipients: "no_recipients"
            case .unknownRecipients: "unknown_recipients"
            case .held: "held"
            case .limit: "limit_reached"
            case .tooLarge: "too_large"
            case .overQuota: "over_quota"
            }
        return "\(code): \(refusal.explanation)"
    }

    /// What happened to one recipient of a send, from the submission's `deliveryStatus`.
    struct RecipientOutcome {
        enum Outcome: String {
            /// In a mailbox of this server, or accepted by the receiving server.
            case delivered
            /// Waiting in the outbound queue for its attempt.
            case queued
            /// Kept in this server's outbox, not sent (``reason`` says why).
            case held
            /// Not delivered (a full mailbox here, a refusal for good).
            case failed
        }

        var address: String
        var outcome: Outcome
        var reason: HeldReason?

        /// `{"address","status"}`, and for a held one `"reason"` (words) and `"reason_code"`; each recipient's reply
        /// line stays in the result's `delivery` (JMAP's `deliveryStatus`), for display.
        var json: JSONValue {
            var pairs: [(String, JSONValue)] = [("address", .string(address)), ("status", .string(outcome.rawValue))]
            if let reason {
                pairs += [("reason", .string(reason.explanation)), ("reason_code", .string(reason.code))]
            }
            return .object(pairs)
        }
    }

    /// Each recipient's outcome in `deliveryStatus` (RFC 8621 7), decided on `delivered` and Postern's typed
    /// `heldReason`, never on the reply's words.
    static func recipients(_ deliveryStatus: JSONValue) -> [RecipientOutcome] {
        (deliveryStatus.objectValue ?? []).map { address, status in
            let reason = status["heldReason"]?.stringValue.flatMap(HeldReason.init(rawValue:))
            let outcome: RecipientOutcome.Outcome =
                switch status["delivered"]?.stringValue {
                case "yes": .delivered
                case "queued": .queued
                default: reason == nil ? .failed : .held
                }
            return RecipientOutcome(address: address, outcome: outcome, reason: reason)
        }
    }

    func reply(_ arguments: MCPToolArguments, _ call: Call) async throws -> JSONValue {
        try await send(
            replyDraft(
                to: arguments.string("message_id") ?? "", body: arguments.string("body") ?? "",
                all: arguments.bool("reply_all") ?? false, attachments: arguments.attachments(), call),
            call)
    }

    /// The reply to message `id`, in its thread (In-Reply-To and References), to its Reply-To or sender.
    /// - Throws: ``MCPTools/Failure`` when there is no such message.
    func replyDraft(
        to id: String, body: String, all: Bool, attachments: [SubmissionDraft.Attachment], _ call: Call
    ) async throws -> SubmissionDraft {
        let properties: JSONValue = ["id", "messageId", "references", "from", "replyTo", "to", "cc", "subject"]
        let responses = try await jmapCalls(
            [
                [
                    "Email/get",
                    .object([
                        ("accountId", .string(call.principal.accountID)), ("ids", [.string(id)]),
                        ("properties", properties),
                    ]), "m",
                ]
            ], call)
        guard let original = responses["m"]?["list"]?.arrayValue?.first else {
            throw Failure("not_found: no message \(id) in this inbox; read_inbox lists the ids.")
        }
        func emails(_ key: String) -> [String] {
            (original[key]?.arrayValue ?? []).compactMap { $0["email"]?.stringValue }
        }
        let own = call.principal.mailbox.address
        var to = emails("replyTo").isEmpty ? emails("from") : emails("replyTo")
        var cc: [String] = []
        if all {
            to += emails("to").filter { !EmailAddress.same($0, own) && !to.contains($0) }
            cc = emails("cc").filter { !EmailAddress.same($0, own) && !to.contains($0) }
        }
        guard !to.isEmpty else { throw Failure("no_recipient: message \(id) names no sender to reply to.") }
        let subject = original["subject"]?.stringValue ?? ""
        var draft = SubmissionDraft(
            to: to, subject: subject.lowercased().hasPrefix("re:") ? subject : "Re: " + subject, body: body)
        draft.cc = cc
        draft.attachments = attachments
        let messageIDs = original["messageId"]?.arrayValue?.compactMap(\.stringValue) ?? []
        draft.inReplyTo = messageIDs
        draft.references = (original["references"]?.arrayValue?.compactMap(\.stringValue) ?? []) + messageIDs
        return draft
    }

    func runPreset(_ arguments: MCPToolArguments, _ call: Call) async throws -> JSONValue {
        let name = arguments.string("name") ?? ""
        guard let preset = MCPPresets.parameters(name) else {
            throw JSONRPCError(.invalidParams, "No preset \(name).")
        }
        let variables = try MCPToolArguments(
            arguments.values["variables"], for: "run_preset \(name)", preset, limits: configuration)
        let dryRun = arguments.bool("dry_run") ?? false
        let calls: [JSONValue]
        switch name {
        case "list_inbox":
            calls = listCalls(["inMailbox": "inbox"], limit: variables.int("limit") ?? 25, call)
            if !dryRun {
                let responses = try await jmapCalls(calls, call)
                let messages = (responses["g"]?["list"]?.arrayValue ?? []).map(Self.summary)
                return .object([("preset", .string(name)), ("result", .object([("messages", .array(messages))]))])
            }
        case "reply":
            let draft = try await replyDraft(
                to: variables.string("message_id") ?? "", body: variables.string("body") ?? "", all: false,
                attachments: [], call)
            calls = JMAPService.sendCalls(draft, from: call.principal)
            if !dryRun { return .object([("preset", .string(name)), ("result", try await send(draft, call))]) }
        default:
            let draft = Self.draft(variables)
            calls = JMAPService.sendCalls(draft, from: call.principal)
            if !dryRun { return .object([("preset", .string(name)), ("result", try await send(draft, call))]) }
        }
        return .object([("preset", .string(name)), ("dry_run", true), ("jmap_request", Self.envelope(calls))])
    }

    func jmapRequest(_ arguments: MCPToolArguments, _ call: Call) async throws -> JSONValue {
        let account = JSONValue.string(call.principal.accountID)
        let calls = (arguments.values["method_calls"]?.arrayValue ?? []).map { item -> JSONValue in
            guard var parts = item.arrayValue, parts.count == 3, let pairs = parts[1].objectValue,
                !pairs.contains(where: { $0.0 == "accountId" }), parts[0].stringValue != "Core/echo"
            else { return item }
            parts[1] = .object([("accountId", account)] + pairs)
            return .array(parts)
        }
        return try await jmap.run(
            Self.envelope(calls, using: arguments.values["using"]?.arrayValue), as: call.principal,
            client: call.client, requestID: call.requestID)
    }
}
