import EmailAddresses
import MailExtraction
import Storage

/// What a store-wide search asks of a message (the operator's): each field set is a case-insensitive substring that
/// must match, read as ``filter``.
public struct MailSearch: Sendable, Equatable {
    /// The envelope recipients (`envelope_to`) or the `To` header.
    public var to: String?
    /// `MAIL FROM` or the `From` header.
    public var from: String?
    /// The `Subject` header.
    public var subject: String?
    /// The text or HTML body.
    public var text: String?
    /// Only messages stored under this address (lower-cased exact match); nil: every address.
    public var address: String?
    /// Only messages that arrived after this point; nil: from the first.
    public var since: MailSearchPoint?
    /// Only messages in which a one-time code was found (true) or none was (false); nil: either (issue 85).
    public var hasCode: Bool?
    /// Only messages with a link of this kind; nil: any (issue 85).
    public var linkKind: LinkKind?

    /// - Parameters: see the properties; nil or empty leaves a field unfiltered.
    public init(
        to: String? = nil, from: String? = nil, subject: String? = nil, text: String? = nil, address: String? = nil,
        since: MailSearchPoint? = nil, hasCode: Bool? = nil, linkKind: LinkKind? = nil
    ) {
        self.to = to
        self.from = from
        self.subject = subject
        self.text = text
        self.address = address
        self.since = since
        self.hasCode = hasCode
        self.linkKind = linkKind
    }

    /// The addresses searched: `address` alone, or every address.
    public var scope: MailScope {
        guard let address, !address.isEmpty else { return .everyAddress }
        return .address(address)
    }

    /// The search as the store's one filter (``MailFilter``), so that it matches the decoded text every other door
    /// matches: each field set, ANDed; `to` and `from` in the SMTP envelope or the header's addresses; a code and a
    /// link kind as the message's stored extraction has them.
    public var filter: MailFilter {
        func given(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        var conditions: [MailFilter] = []
        if let to = given(to) { conditions.append(.any([.envelopeTo(to), .to(to)])) }
        if let from = given(from) { conditions.append(.any([.envelopeFrom(from), .from(from)])) }
        if let subject = given(subject) { conditions.append(.subject(subject)) }
        if let text = given(text) { conditions.append(.body(text)) }
        if let since { conditions.append(.arrivedAfter(since)) }
        if let hasCode { conditions.append(.hasCode(hasCode)) }
        if let linkKind { conditions.append(.hasLinkKind(linkKind)) }
        return .all(conditions)
    }
}

/// A point in the store's arrival order that a search starts after (the operator API's `since`).
public enum MailSearchPoint: Sendable, Equatable {
    /// After a stored message: later seconds, and in its own second the messages that arrived after it
    /// (`received_at`, then the arrival counter `received_seq`, the order every listing uses).
    case message(receivedAt: Int64, sequence: Int64)
    /// From this Unix second on, that second included: arrival times are whole seconds, so a point taken in the same
    /// second as a later delivery must not lose it.
    case second(Int64)
}

/// The operator's view of the store: searches across every address (mailboxes, agent inboxes, sandboxes and the
/// catch-all), the wait for a match and the reset between tests. Never reached by a user's credentials: the
/// per-address reads of ``MailStore`` stay the only ones a surface uses for its users.
extension MailStore {
    /// Messages that match `search` across every address, newest first, at most `limit`.
    /// - Parameter start: how many of the newest matches to pass over first.
    public func search(_ search: MailSearch, limit: Int = 100, start: Int = 0) async throws -> [MailSummary] {
        try await list(MailSelection(search.scope, search.filter, start: start, limit: max(1, limit)))
    }

    /// How many messages match `search` across every address.
    public func count(_ search: MailSearch) async throws -> Int {
        let (condition, values) = Self.scoped(search.scope, search.filter, database.dialect)
        return try await database.read { connection in
            Int(
                try connection.query("SELECT COUNT(*) AS n FROM mail_messages WHERE \(condition)", values).first?
                    .int("n") ?? 0)
        }
    }

    /// Where message `id` stands in the arrival order, nil when no address has it: the `since` of a search that
    /// wants only what came after it.
    public func point(ofMessage id: String) async throws -> MailSearchPoint? {
        try await database.read { connection in
            guard
                let row = try connection.query(
                    "SELECT received_at, received_seq FROM mail_messages WHERE id = ?", [.text(id)]
                ).first, let receivedAt = row.int("received_at"), let sequence = row.int("received_seq")
            else { return nil }
            return .message(receivedAt: receivedAt, sequence: sequence)
        }
    }

    /// The oldest message that matches `search` as soon as there is one (at once when one is stored), nil after
    /// `timeout`. Looks again at each change at any address (the change stream of every address).
    public func oldestMatch(_ search: MailSearch, timeout: Duration) async throws -> MailSummary? {
        try await changeStream(of: nil, until: .now + timeout).firstLook { _ in
            try await list(MailSelection(search.scope, search.filter, order: .oldestFirst, limit: 1)).first
        }
    }

    /// Deletes every message of every address, their attachments with them; returns how many there were. The change
    /// log's triggers record each deletion for its address (so every JMAP state moves, as ``deleteAll(address:)``
    /// moves one), and each address's waiters are woken after the commit.
    public func deleteEverything() async throws -> Int {
        try await delete(MailSelection(.everyAddress)).count
    }

    /// Every address that holds a message, sorted: the mailboxes of the operator's read-only view of all mail.
    public func addresses() async throws -> [String] {
        try await database.read { connection in
            try connection.query("SELECT DISTINCT address FROM mail_messages ORDER BY address", [])
                .compactMap { $0.text("address") }
        }
    }

    /// Whether `address` holds a message whose SMTP envelope named `recipient`: one of the `RCPT TO`s kept in
    /// `envelope_to`, matched whole and exactly as delivery stored it (``EmailAddress/key(_:)``: no `LOWER`, which
    /// PostgreSQL applies by Unicode's rules and so folds KELVIN SIGN onto `k`), so `bob@x.org` is not found in mail
    /// to `jimbob@x.org`. The
    /// mailbox `postern web link` opens for an address only the catch-all took.
    public func holdsMail(address: String, sentTo recipient: String) async throws -> Bool {
        // envelope_to joins the recipients with ", ": framed by ", " on both sides, each one reads ", r, ".
        let pattern = "%, " + MailFilter.escapeLike(EmailAddress.key(recipient)) + ", %"
        return try await database.read { connection in
            try !connection.query(
                """
                SELECT 1 FROM mail_messages
                    WHERE address = ? AND (', ' || envelope_to || ', ') LIKE ? ESCAPE '\\' LIMIT 1
                """, [.text(EmailAddress.key(address)), .text(pattern)]
            ).isEmpty
        }
    }

    /// `address` (normalised, as addresses are stored: ``EmailAddress/key(_:)``) when it holds a message, else nil: one mailbox of the
    /// operator's read-only view of all mail, looked up alone (one row at most), never by listing ``addresses()``.
    public func holdingAddress(_ address: String) async throws -> String? {
        try await database.read { connection in
            try connection.query(
                "SELECT address FROM mail_messages WHERE address = ? LIMIT 1", [.text(EmailAddress.key(address))]
            ).first?.text("address")
        }
    }

    /// The address message `id` is stored under, nil when no address has it (the operator's `postern mail show`).
    public func address(ofMessage id: String) async throws -> String? {
        try await database.read { connection in
            try connection.query("SELECT address FROM mail_messages WHERE id = ?", [.text(id)]).first?.text("address")
        }
    }
}
