import Directory
import JSON
import SMTPOutcomes

/// The sending tools: send_email, reply_to_message, run_preset, jmap_request. A message is an Email/set draft and an
/// EmailSubmission/set, as a JMAP client sends one; attachments are Blob/upload blobs.
extension MCPTools {
    /// A message to send.
    struct Draft: Sendable {
        var to: [String]
        var cc: [String] = []
        var bcc: [String] = []
        var subject: String
        var body: String
        var attachments: [MCPToolArguments.Attachment] = []
        var inReplyTo: [String] = []
        var references: [String] = []

        init(to: [String], subject: String, body: String) {
            self.to = to
            self.subject = subject
            self.body = body
        }

        /// The draft of send_email's (or a send preset's) arguments.
        init(_ arguments: MCPToolArguments) {
            self.init(
                to: arguments.addresses("to"), subject: arguments.string("subject") ?? "",
                body: arguments.string("body") ?? "")
            cc = arguments.addresses("cc")
            bcc = arguments.addresses("bcc")
            attachments = arguments.attachments()
        }
    }

    /// The JMAP calls that send `draft`: Blob/upload of its attachments, the Email/set draft, its submission.
    func sendCalls(_ draft: Draft, _ call: Call) -> [JSONValue] {
        let account = JSONValue.string(call.principal.accountID)
        var calls: [JSONValue] = []
        if !draft.attachments.isEmpty {
            let blobs = draft.attachments.enumerated().map { index, attachment -> (String, JSONValue) in
                (
                    "a\(index)",
                    .object([
                        ("data", [.object([("data:asBase64", .string(attachment.base64))])]),
                        ("type", .string(attachment.contentType)),
                    ])
                )
            }
            calls.append(["Blob/upload", .object([("accountId", account), ("create", .object(blobs))]), "u"])
        }
        func addresses(_ list: [String]) -> JSONValue { .array(list.map { .object([("email", .string($0))]) }) }
        var email: [(String, JSONValue)] = [
            ("mailboxIds", ["drafts": true]), ("from", addresses([call.principal.mailbox.address])),
            ("to", addresses(draft.to)), ("subject", .string(draft.subject)),
            ("textBody", [["partId": "body", "type": "text/plain"]]),
            ("bodyValues", .object([("body", .object([("value", .string(draft.body))]))])),
        ]
        if !draft.cc.isEmpty { email.append(("cc", addresses(draft.cc))) }
        if !draft.bcc.isEmpty { email.append(("bcc", addresses(draft.bcc))) }
        if !draft.inReplyTo.isEmpty { email.append(("inReplyTo", .array(draft.inReplyTo.map(JSONValue.string)))) }
        if !draft.references.isEmpty { email.append(("references", .array(draft.references.map(JSONValue.string)))) }
        if !draft.attachments.isEmpty {
            email.append((
                "attachments",
                .array(
                    draft.attachments.enumerated().map { index, attachment in
                        .object([
                            ("blobId", .string("#a\(index)")), ("type", .string(attachment.contentType)),
                            ("name", .string(attachment.filename)), ("disposition", "attachment"),
                        ])
                    })
            ))
        }
        calls.append(["Email/set", .object([("accountId", account), ("create", .object([("draft", .object(email))]))]), "c"])
        calls.append([
            "EmailSubmission/set",
            .object([("accountId", account), ("create", .object([("send", .object([("emailId", "#draft")]))]))]), "s",
        ])
        return calls
    }

    /// Sends `draft`; what was sent and to whom it was delivered.
    /// - Throws: ``MCPTools/Failure`` naming what JMAP refused (an attachment, the draft, a recipient); a draft
    ///   whose submission was refused is destroyed again, so a refused send leaves nothing behind.
    func send(_ draft: Draft, _ call: Call) async throws -> JSONValue {
        let responses = try await jmapCalls(sendCalls(draft, call), call)
        let created = responses["c"]?["created"]?["draft"]
        for callID in ["u", "c", "s"] {
            guard let refused = responses[callID]?["notCreated"]?.objectValue, let first = refused.first else { continue }
            if let id = created?["id"] {
                // The server's own cleanup of the draft it just made, not the client's: a mail.send-only grant, which
                // may not destroy mail, still leaves nothing behind.
                let cleanup = Call(
                    principal: Principal(
                        accountID: call.principal.accountID, mailbox: call.principal.mailbox,
                        impliesAccountID: call.principal.impliesAccountID),
                    client: call.client, requestID: call.requestID)
                _ = try await jmapCalls(
                    [
                        [
                            "Email/set",
                            .object([("accountId", .string(call.principal.accountID)), ("destroy", [id])]), "x",
                        ]
                    ], cleanup)
            }
            let type = first.1["type"]?.stringValue ?? "refused"
            let description = first.1["description"]?.stringValue ?? ""
            throw Failure("\(type): \(description) Nothing was sent.")
        }
        let delivery = responses["s"]?["created"]?["send"]?["deliveryStatus"] ?? .null
        let recipients = Self.recipients(delivery)
        return .object([
            ("sent", .bool(recipients.allSatisfy { $0.outcome == .delivered || $0.outcome == .queued })),
            ("email_id", created?["id"] ?? .null), ("thread_id", created?["threadId"] ?? .null),
            ("recipients", .array(recipients.map(\.json))), ("delivery", delivery),
        ])
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
        to id: String, body: String, all: Bool, attachments: [MCPToolArguments.Attachment], _ call: Call
    ) async throws -> Draft {
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
        let own = call.principal.mailbox.address.lowercased()
        var to = emails("replyTo").isEmpty ? emails("from") : emails("replyTo")
        var cc: [String] = []
        if all {
            to += emails("to").filter { $0.lowercased() != own && !to.contains($0) }
            cc = emails("cc").filter { $0.lowercased() != own && !to.contains($0) }
        }
        guard !to.isEmpty else { throw Failure("no_recipient: message \(id) names no sender to reply to.") }
        let subject = original["subject"]?.stringValue ?? ""
        var draft = Draft(
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
            calls = sendCalls(draft, call)
            if !dryRun { return .object([("preset", .string(name)), ("result", try await send(draft, call))]) }
        default:
            let draft = Draft(variables)
            calls = sendCalls(draft, call)
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
