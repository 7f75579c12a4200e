import JSON
import MailExtraction
import MailStore

/// The tools over what Postern found in each message at delivery (issue 85): `wait_for_message`'s criteria,
/// `get_verification_code` and `get_links`. The messages are chosen by the store's one filter (``MailFilter``) at the
/// call's inbox and shown through JMAP as the other tools show them; a code is given bare (its shape is 4 to 10 digits
/// and upper-case letters, grouped by a space or a hyphen: no text), anything else that came from the message (a
/// link's URL and text) is wrapped as untrusted content.
extension MCPTools {
    static let linkKindParameter = MCPParameter(
        "link_kind", .choice(LinkKind.allCases.map(\.name)),
        "Only a message with a link of this kind: verify, sign-in (a magic link), reset, unsubscribe, other.")
    static let hasCodeParameter = MCPParameter(
        "has_code", .boolean, "Only a message in which a one-time code was found (true) or none was (false).")

    /// The store's filter of the criteria `from`, `subject`, `has_code` (or `hasCode` when given) and `link_kind`
    /// among the inbox's messages.
    static func criteria(_ arguments: MCPToolArguments, unreadOnly: Bool, hasCode: Bool? = nil) -> MailFilter {
        var filter: [MailFilter] = [.inFolder(.inbox)]
        if unreadOnly { filter.append(.notKeyword("$seen")) }
        if let from = arguments.string("from") { filter.append(.from(from)) }
        if let subject = arguments.string("subject") { filter.append(.subject(subject)) }
        if let wanted = hasCode ?? arguments.bool("has_code") { filter.append(.hasCode(wanted)) }
        if let kind = arguments.string("link_kind").flatMap(LinkKind.init(name:)) { filter.append(.hasLinkKind(kind)) }
        return .all(filter)
    }

    /// `filter`'s first message at the call's inbox in `order`, waiting up to `seconds` for one on the store's change
    /// stream (at once when one is there).
    func first(_ filter: MailFilter, order: MailSelection.Order, seconds: Int, _ call: Call) async throws
        -> MailSummary?
    {
        let address = call.principal.mailbox.address
        let selection = MailSelection(.address(address), filter, order: order, limit: 1)
        return try await mail.waitFor(address: address, timeout: .seconds(seconds)) {
            try await mail.list(selection).first
        }
    }

    /// `get_verification_code`: the best code of the newest inbox message that matches and has one (waiting up to
    /// `timeout_seconds`, default 0), with the message's id, subject and sender, the other codes found in it, and
    /// when there is none, why.
    func verificationCode(_ arguments: MCPToolArguments, _ call: Call) async throws -> JSONValue {
        let seconds = Int(arguments.int("timeout_seconds") ?? 0)
        let filter = Self.criteria(arguments, unreadOnly: false, hasCode: true)
        guard let found = try await first(filter, order: .newestFirst, seconds: seconds, call),
            let extraction = try await mail.extraction(address: found.address, id: found.id),
            let best = extraction.codes.first
        else {
            return .object([("code", .null), ("reason", .string(try await noCodeReason(arguments, call)))])
        }
        return .object([
            ("code", Self.code(best.value)), ("source", .string(best.sources.first?.rawValue ?? "text")),
            ("message_id", .string(found.id)), ("subject", MCPUntrusted.field(found.subject.map(JSONValue.string))),
            ("from", .array(found.from.map { .string(MCPUntrusted.field($0.email)) })),
            ("received_at", .int(found.receivedAt)),
            ("alternatives", .array(extraction.codes.dropFirst().map { Self.code($0.value) })),
        ])
    }

    /// Why no message gives a code: none matches, or those that match have none (or were stored before codes were
    /// found, and wait for the operator's backfill).
    private func noCodeReason(_ arguments: MCPToolArguments, _ call: Call) async throws -> String {
        let address = call.principal.mailbox.address
        let matching = try await mail.list(
            MailSelection(.address(address), Self.criteria(arguments, unreadOnly: false), limit: 1)
        ).first
        guard let matching else {
            return "no message in this inbox matches; wait_for_message waits for one (has_code: true)."
        }
        guard try await mail.extraction(address: address, id: matching.id) != nil else {
            return "the newest matching message (\(matching.id)) was stored before Postern looked for codes; the "
                + "operator's `postern mail extract --backfill` fills it in. read_message shows its text."
        }
        return "the matching messages carry no one-time code (the newest is \(matching.id)); its links may be what "
            + "the sender meant: get_links shows them with their kinds."
    }

    /// `get_links`: the links of message `message_id` with their kinds (verify, sign-in, reset first, best first),
    /// only those of `kind` when given.
    func links(_ arguments: MCPToolArguments, _ call: Call) async throws -> JSONValue {
        let id = arguments.string("message_id") ?? ""
        let address = call.principal.mailbox.address
        guard try await mail.exists(address: address, id: id) else {
            throw Failure("not_found: no message \(id) in this inbox; read_inbox or search_messages lists the ids.")
        }
        guard let extraction = try await mail.extraction(address: address, id: id) else {
            throw Failure(
                "not_extracted: message \(id) was stored before Postern looked for links; the operator's "
                    + "`postern mail extract --backfill` fills it in. read_message shows its text.")
        }
        let kind = arguments.string("kind").flatMap(LinkKind.init(name:))
        let links = extraction.links.filter { kind == nil || $0.kind == kind }.map(Self.link)
        return .object([("message_id", .string(id)), ("links", .array(links))])
    }

    /// A link as the tools print it: its URL and visible text wrapped as untrusted content, its kind.
    static func link(_ link: ExtractedLink) -> JSONValue {
        .object([
            ("url", .string(MCPUntrusted.field(link.url))), ("text", .string(MCPUntrusted.field(link.text))),
            ("kind", .string(link.kind.name)),
        ])
    }

    /// A code bare when it has a code's shape (upper-case ASCII letters, digits, a space or a hyphen), else wrapped.
    static func code(_ value: String) -> JSONValue {
        let plain = value.unicodeScalars.allSatisfy { scalar in
            ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == " " || scalar == "-"
        }
        return .string(plain ? value : MCPUntrusted.field(value))
    }

    /// The codes and links of message `id` at `address` as `wait_for_message` adds them to its answer; null for a
    /// message stored before Postern found them.
    func extractionPairs(address: String, id: String) async throws -> [(String, JSONValue)] {
        guard let extraction = try await mail.extraction(address: address, id: id) else {
            return [("codes", .null), ("links", .null)]
        }
        return [
            ("codes", .array(extraction.codes.map { Self.code($0.value) })),
            ("links", .array(extraction.links.map(Self.link))),
        ]
    }
}
