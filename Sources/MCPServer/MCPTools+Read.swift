import Directory
import JSON

/// The reading tools: read_inbox, read_message, search_messages, search, fetch, wait_for_message, list_agents.
extension MCPTools {
    static let summaryProperties: JSONValue = [
        "id", "threadId", "from", "to", "subject", "receivedAt", "preview", "hasAttachment", "keywords",
    ]

    /// The JMAP calls that list `filter`'s messages, newest (or oldest) first: an Email/query and the Email/get of its
    /// ids.
    func listCalls(_ filter: JSONValue, limit: Int64, ascending: Bool = false, _ call: Call) -> [JSONValue] {
        let account = JSONValue.string(call.principal.accountID)
        return [
            [
                "Email/query",
                .object([
                    ("accountId", account), ("filter", filter),
                    ("sort", [.object([("property", "receivedAt"), ("isAscending", .bool(ascending))])]),
                    ("limit", .int(limit)),
                ]), "q",
            ],
            [
                "Email/get",
                .object([
                    ("accountId", account), ("#ids", ["resultOf": "q", "name": "Email/query", "path": "/ids"]),
                    ("properties", Self.summaryProperties),
                ]), "g",
            ],
        ]
    }

    /// The summary of message `id` (as ``list(_:limit:ascending:_:)`` gives them); nil when the inbox has none such.
    func summary(of id: String, _ call: Call) async throws -> JSONValue? {
        let responses = try await jmapCalls(
            [
                [
                    "Email/get",
                    .object([
                        ("accountId", .string(call.principal.accountID)), ("ids", [.string(id)]),
                        ("properties", Self.summaryProperties),
                    ]), "g",
                ]
            ], call)
        return responses["g"]?["list"]?.arrayValue?.first.map(Self.summary)
    }

    /// The summaries of `filter`'s messages.
    func list(_ filter: JSONValue, limit: Int64, ascending: Bool = false, _ call: Call) async throws -> [JSONValue] {
        try await emails(filter, limit: limit, ascending: ascending, call).map(Self.summary)
    }

    /// `filter`'s messages as JMAP Email objects of ``summaryProperties``, as the message wrote them.
    func emails(_ filter: JSONValue, limit: Int64, ascending: Bool = false, _ call: Call) async throws -> [JSONValue] {
        let responses = try await jmapCalls(listCalls(filter, limit: limit, ascending: ascending, call), call)
        return responses["g"]?["list"]?.arrayValue ?? []
    }

    func readInbox(limit: Int64, _ call: Call) async throws -> JSONValue {
        let messages = try await list(["inMailbox": "inbox"], limit: limit, call)
        return .object([("inbox", .string(call.principal.mailbox.address)), ("messages", .array(messages))])
    }

    func searchMessages(_ arguments: MCPToolArguments, _ call: Call) async throws -> JSONValue {
        let filter = ["text", "subject", "body", "from"].compactMap { key in
            arguments.string(key).map { (key, JSONValue.string($0)) }
        }
        guard !filter.isEmpty else {
            throw JSONRPCError(.invalidParams, "search_messages needs at least one of text, subject, body, from.")
        }
        let messages = try await list(.object(filter), limit: arguments.int("limit") ?? 25, call)
        return .object([("messages", .array(messages))])
    }

    func search(_ query: String, _ call: Call) async throws -> JSONValue {
        let messages = try await emails(["text": .string(query)], limit: 20, call)
        let results = messages.map { message -> JSONValue in
            let id = message["id"]?.stringValue ?? ""
            return .object([
                ("id", .string(id)), ("title", Self.title(message["subject"])), ("url", .string(messageURL(id))),
            ])
        }
        return .object([("results", .array(results))])
    }

    func fetch(_ id: String, _ call: Call) async throws -> JSONValue {
        let email = try await self.email(id, call)
        let message = Self.message(email)
        return .object([
            ("id", .string(id)), ("title", Self.title(email["subject"])),
            ("text", message["body"] ?? ""), ("url", .string(messageURL(id))),
            (
                "metadata",
                .object([
                    ("from", message["from"] ?? .null), ("to", message["to"] ?? .null),
                    ("received_at", message["received_at"] ?? .null),
                ])
            ),
        ])
    }

    func readMessage(_ id: String, _ call: Call) async throws -> JSONValue {
        Self.message(try await email(id, call))
    }

    /// A search result's title: the subject wrapped as untrusted content, or our own "(no subject)".
    static func title(_ subject: JSONValue?) -> JSONValue {
        guard let text = subject?.stringValue, !text.isEmpty else { return "(no subject)" }
        return MCPUntrusted.field(subject)
    }

    /// Message `id` in full as a JMAP Email object, as the message wrote it.
    /// - Throws: ``MCPTools/Failure`` when the inbox holds no such message.
    func email(_ id: String, _ call: Call) async throws -> JSONValue {
        let properties: JSONValue = [
            "id", "threadId", "messageId", "inReplyTo", "references", "from", "to", "cc", "replyTo", "subject",
            "receivedAt", "sentAt", "textBody", "bodyValues", "attachments", "keywords",
        ]
        let responses = try await jmapCalls(
            [
                [
                    "Email/get",
                    .object([
                        ("accountId", .string(call.principal.accountID)), ("ids", [.string(id)]),
                        ("properties", properties), ("fetchTextBodyValues", true),
                    ]), "m",
                ]
            ], call)
        guard let email = responses["m"]?["list"]?.arrayValue?.first else {
            throw Failure("not_found: no message \(id) in this inbox; read_inbox or search_messages lists the ids.")
        }
        return email
    }

    /// An Email in full as the tools print it: its headers, its plain-text body, its attachments, each string that
    /// came from the message wrapped as untrusted content.
    static func message(_ email: JSONValue) -> JSONValue {
        let values = email["bodyValues"]
        let text = (email["textBody"]?.arrayValue ?? []).compactMap { part in
            part["partId"]?.stringValue.flatMap { values?[$0]?["value"]?.stringValue }
        }.joined(separator: "\n")
        let attachments = (email["attachments"]?.arrayValue ?? []).map { part -> JSONValue in
            .object([
                ("filename", MCPUntrusted.field(part["name"])), ("content_type", MCPUntrusted.field(part["type"])),
                ("size", part["size"] ?? .null), ("blob_id", part["blobId"] ?? .null),
            ])
        }
        return .object([
            ("id", email["id"] ?? .null), ("thread_id", email["threadId"] ?? .null),
            ("message_id", MCPUntrusted.field(email["messageId"])),
            ("in_reply_to", MCPUntrusted.field(email["inReplyTo"])),
            ("from", Self.addresses(email["from"])), ("to", Self.addresses(email["to"])),
            ("cc", Self.addresses(email["cc"])), ("reply_to", Self.addresses(email["replyTo"])),
            ("subject", MCPUntrusted.field(email["subject"])), ("received_at", email["receivedAt"] ?? .null),
            ("sent_at", email["sentAt"] ?? .null), ("unread", .bool(email["keywords"]?["$seen"] == nil)),
            ("body", .string(MCPUntrusted.wrap(text))), ("attachments", .array(attachments)),
        ])
    }

    /// `wait_for_message`: the oldest unread inbox message that passes the criteria
    /// (``criteria(_:unreadOnly:hasCode:)``) as soon as there is one, marked read, with its codes and links;
    /// `{message: null, timed_out: true}` after the timeout.
    func waitForMessage(_ arguments: MCPToolArguments, _ call: Call) async throws -> JSONValue {
        let seconds = Int(arguments.int("timeout_seconds") ?? Int64(configuration.maxWaitSeconds))
        guard let stored = try await first(Self.criteria(arguments, unreadOnly: true), order: .oldestFirst,
            seconds: seconds, call),
            let found = try await summary(of: stored.id, call)
        else {
            return .object([("message", .null), ("timed_out", true)])
        }
        _ = try await jmapCalls(
            [
                [
                    "Email/set",
                    .object([
                        ("accountId", .string(call.principal.accountID)),
                        ("update", .object([(stored.id, .object([("keywords/$seen", true)]))])),
                    ]), "r",
                ]
            ], call)
        return .object(
            [("message", found), ("timed_out", false)]
                + (try await extractionPairs(address: stored.address, id: stored.id)))
    }

    /// The inboxes the connection may use: the API key's one; on the OAuth path the owner's, the grant's default
    /// (or the only one) marked.
    func listAgents(_ connection: MCPConnection) async throws -> JSONValue {
        switch connection {
        case .inbox(let principal):
            return .object([
                (
                    "agents",
                    [
                        .object([
                            ("accountId", .string(principal.accountID)), ("email", .string(principal.mailbox.address)),
                            ("default", true),
                        ])
                    ]
                )
            ])
        case .owner(let grant):
            let held = try await owners?.inboxes(of: grant) ?? []
            let preferred = OwnerPrincipals.defaultInbox(of: grant, among: held)?.accountID
            return .object([
                (
                    "agents",
                    .array(
                        held.map { inbox in
                            .object([
                                ("accountId", .string(inbox.accountID)), ("email", .string(inbox.address)),
                                ("default", .bool(inbox.accountID == preferred)),
                            ])
                        })
                ),
                ("scopes", .array(grant.permissions.names.map(JSONValue.string))),
            ])
        }
    }

    /// Where a message is cited from (the ChatGPT convention wants a URL): the MCP resource with its id.
    func messageURL(_ id: String) -> String { configuration.resource + "#message=" + id }

    /// A message summary as the tools print it, each string that came from the message wrapped as untrusted content.
    static func summary(_ email: JSONValue) -> JSONValue {
        .object([
            ("id", email["id"] ?? .null), ("thread_id", email["threadId"] ?? .null),
            ("from", addresses(email["from"])), ("to", addresses(email["to"])),
            ("subject", MCPUntrusted.field(email["subject"])), ("received_at", email["receivedAt"] ?? .null),
            ("preview", MCPUntrusted.field(email["preview"])),
            ("has_attachment", email["hasAttachment"] ?? false), ("unread", .bool(email["keywords"]?["$seen"] == nil)),
        ])
    }

    /// JMAP EmailAddress objects as `Name <email>` strings, each wrapped as untrusted content.
    static func addresses(_ value: JSONValue?) -> JSONValue {
        .array(
            (value?.arrayValue ?? []).compactMap { address in
                guard let email = address["email"]?.stringValue else { return nil }
                guard let name = address["name"]?.stringValue, !name.isEmpty else {
                    return .string(MCPUntrusted.field(email))
                }
                return .string(MCPUntrusted.field("\(name) <\(email)>"))
            })
    }
}
