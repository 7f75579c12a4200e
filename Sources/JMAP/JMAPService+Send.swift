import ClientAddress
import Directory
import JSON
import MailSubmission

extension JMAPService {
    /// Sends `message` as `principal`, in-process, through the method table as a JMAP client's request runs (the
    /// scopes checked before it, then `Blob/upload` of the attachments, the `Email/set` draft in Drafts, its
    /// `EmailSubmission/set`): who the message says it is from, which recipients exist, the per-sender limits and
    /// what leaves this server are decided by the methods, once. The one sender of MCP's tools and the web inbox.
    /// - Parameters:
    ///   - message: what to send.
    ///   - principal: who sends (its authenticator already checked it).
    ///   - client: the client's rate-limit key.
    ///   - requestID: the request id unexpected errors are logged with.
    /// - Returns: the email and its submission, with each recipient's recorded status when there is a ledger.
    /// - Throws: ``SendFailure`` when nothing was sent (a refused submission's `SetError` carries the owner's typed
    ///   ``SetError/refusal``, for the caller to word), after destroying the draft it made (the server's own
    ///   cleanup: a `mail.send`-only grant, which may not destroy mail, still leaves nothing behind);
    ///   ``JMAPService/Refusal`` for a request-level error; ``AuthenticationRefusal`` when the principal lacks the
    ///   scope; storage errors.
    public func send(_ message: SubmissionDraft, as principal: Principal, client: ClientAddressKey, requestID: String)
        async throws -> SentMessage
    {
        let (answers, refusals) = try await runCalls(
            Self.sendCalls(message, from: principal), principal, client, requestID)
        let draft = answers["c"]?.arguments["created"]?["draft"]
        do {
            for (callID, step) in [("u", SendStep.attachments), ("c", .draft), ("s", .submission)] {
                guard let answer = answers[callID] else { continue }
                if let failure = answer.failure {
                    throw SendFailure.failed(step, type: failure.type, description: failure.description)
                }
                if let (creationID, refused) = answer.arguments["notCreated"]?.objectValue?.first {
                    // Every refusal this server writes is a SetError.Kind; anything else is the server's own fault.
                    guard var error = SetError(json: refused) else {
                        throw SendFailure.failed(step, type: "serverFail", description: "")
                    }
                    if step == .submission { error.refusal = refusals[creationID] }
                    throw SendFailure.refused(step, error)
                }
            }
            guard let emailID = draft?["id"]?.stringValue, let threadID = draft?["threadId"]?.stringValue,
                let submission = answers["s"]?.arguments["created"]?["send"],
                let submissionID = submission["id"]?.stringValue
            else { throw SendFailure.failed(.submission, type: "noSubmission", description: "") }
            return SentMessage(
                emailID: emailID, threadID: threadID, submissionID: submissionID,
                deliveryStatus: submission["deliveryStatus"] ?? .null,
                recipients: try await recordedRecipients(accountID: principal.accountID, submissionID: submissionID))
        } catch let failure as SendFailure {
            if let id = draft?["id"] {
                // A cleanup that fails leaves a draft in Drafts, which its holder sees and may delete; the refusal is
                // what the caller is told.
                let cleanup = Principal(
                    accountID: principal.accountID, mailbox: principal.mailbox,
                    impliesAccountID: principal.impliesAccountID)
                let destroy: JSONValue = .object([("accountId", .string(principal.accountID)), ("destroy", [id])])
                _ = try? await runCalls([["Email/set", destroy, "x"]], cleanup, client, requestID)
            }
            throw failure
        }
    }

    /// The calls that send `message` from `principal`'s mailbox: `Blob/upload` of its attachments (call `u`), the
    /// `Email/set` draft in Drafts (`c`, created as `draft`), its `EmailSubmission/set` (`s`, created as `send`).
    /// What ``send(_:as:client:requestID:)`` runs, and what a dry run shows.
    public static func sendCalls(_ message: SubmissionDraft, from principal: Principal) -> [JSONValue] {
        let account = JSONValue.string(principal.accountID)
        var calls: [JSONValue] = []
        if !message.attachments.isEmpty {
            let blobs = message.attachments.enumerated().map { index, attachment -> (String, JSONValue) in
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
        calls.append(
            ["Email/set", .object([("accountId", account), ("create", .object([("draft", draft(message, principal))]))]), "c"])
        var submission: [(String, JSONValue)] = [
            ("accountId", account), ("create", .object([("send", .object([("emailId", "#draft")]))])),
        ]
        if message.filedAsRead {
            let filed: JSONValue = .object([
                ("mailboxIds", ["sent": true]), ("keywords/$draft", .null), ("keywords/$seen", true),
            ])
            submission.append(("onSuccessUpdateEmail", .object([("#send", filed)])))
        }
        calls.append(["EmailSubmission/set", .object(submission), "s"])
        return calls
    }

    /// The Email object of `message`'s draft, from `principal`'s own address, its attachments the blobs of call `u`.
    private static func draft(_ message: SubmissionDraft, _ principal: Principal) -> JSONValue {
        func addresses(_ list: [String]) -> JSONValue { .array(list.map { .object([("email", .string($0))]) }) }
        var email: [(String, JSONValue)] = [("mailboxIds", ["drafts": true])]
        if message.filedAsRead { email.append(("keywords", ["$draft": true])) }
        email += [
            ("from", addresses([principal.mailbox.address])), ("to", addresses(message.to)),
            ("subject", .string(message.subject)), ("textBody", [["partId": "body", "type": "text/plain"]]),
            ("bodyValues", .object([("body", .object([("value", .string(message.body))]))])),
        ]
        if !message.cc.isEmpty { email.append(("cc", addresses(message.cc))) }
        if !message.bcc.isEmpty { email.append(("bcc", addresses(message.bcc))) }
        if !message.inReplyTo.isEmpty { email.append(("inReplyTo", .array(message.inReplyTo.map(JSONValue.string)))) }
        if !message.references.isEmpty {
            email.append(("references", .array(message.references.map(JSONValue.string))))
        }
        if !message.attachments.isEmpty {
            let parts = message.attachments.enumerated().map { index, attachment -> JSONValue in
                .object([
                    ("blobId", .string("#a\(index)")), ("type", .string(attachment.contentType)),
                    ("name", .string(attachment.filename)), ("disposition", "attachment"),
                ])
            }
            email.append(("attachments", .array(parts)))
        }
        return .object(email)
    }

    /// One call's answer in an in-process request (``calls(_:as:client:requestID:)``): its first, the method's own.
    public struct CallAnswer: Sendable {
        /// The call id it answers.
        public var callID: String
        /// Its arguments (a method-level error's own when ``failure`` is set).
        public var arguments: JSONValue
        /// Its method-level error (RFC 8620 3.6.2): type and description; nil when the method answered.
        public var failure: (type: String, description: String)?
    }

    /// Runs `calls` (`[name, arguments, callId]`) as one request of `principal`'s (``request(_:using:)``, every
    /// capability), as a JMAP client's request runs: the one in-process runner of ``send(_:as:client:requestID:)``
    /// and MCP's tools.
    /// - Returns: each call's first answer, in the response's order.
    /// - Throws: ``JMAPService/Refusal`` for a request-level error; storage errors.
    public func calls(
        _ calls: [JSONValue], as principal: Principal, client: ClientAddressKey, requestID: String
    ) async throws -> [CallAnswer] {
        try await answers(calls, as: principal, client: client, requestID: requestID).answers
    }

    /// ``calls(_:as:client:requestID:)``'s answers, and the typed refusals of the submissions it refused by creation
    /// id (``JMAPCall/submissionRefusals``).
    private func answers(
        _ calls: [JSONValue], as principal: Principal, client: ClientAddressKey, requestID: String
    ) async throws -> (answers: [CallAnswer], refusals: [String: SubmissionRefusal]) {
        let (response, call) = try await execute(
            Self.request(calls), as: principal, client: client, requestID: requestID)
        var seen: Set<String> = []
        var answers: [CallAnswer] = []
        for item in response["methodResponses"]?.arrayValue ?? [] {
            guard let parts = item.arrayValue, parts.count == 3, let id = parts[2].stringValue, seen.insert(id).inserted
            else { continue }
            let failure =
                parts[0].stringValue == "error"
                ? (parts[1]["type"]?.stringValue ?? "error", parts[1]["description"]?.stringValue ?? "") : nil
            answers.append(CallAnswer(callID: id, arguments: parts[1], failure: failure))
        }
        return (answers, call.submissionRefusals)
    }

    /// A request object of `calls`, `using` the given capabilities, by default every one this server has.
    public static func request(_ calls: [JSONValue], using: [JSONValue]? = nil) -> JSONValue {
        let every = [Capability.core, Capability.mail, Capability.submission, Capability.blob].map(JSONValue.string)
        return .object([("using", .array(using ?? every)), ("methodCalls", .array(calls))])
    }

    /// ``calls(_:as:client:requestID:)``'s answers by call id, and the typed refusals of its submissions.
    private func runCalls(
        _ calls: [JSONValue], _ principal: Principal, _ client: ClientAddressKey, _ requestID: String
    ) async throws -> (answers: [String: CallAnswer], refusals: [String: SubmissionRefusal]) {
        let (answers, refusals) = try await self.answers(calls, as: principal, client: client, requestID: requestID)
        return (Dictionary(answers.map { ($0.callID, $0) }, uniquingKeysWith: { first, _ in first }), refusals)
    }
}
