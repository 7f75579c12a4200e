import Foundation
import MailExtraction
import Storage

/// A condition on one address's messages, as JMAP's `Email/query` filters them (RFC 8621 section 4.4.1), turned
/// into SQL with bound values only.
public indirect enum MailFilter: Sendable, Equatable {
    case all([MailFilter])
    case any([MailFilter])
    case none([MailFilter])
    case inFolder(MailFolder)
    case notInFolders([MailFolder])
    /// `receivedAt` before / at or after, Unix seconds.
    case before(Int64)
    case after(Int64)
    case minSize(Int64)
    case maxSize(Int64)
    case hasKeyword(String)
    case notKeyword(String)
    /// Every, some or no message of the message's thread has this keyword (RFC 8621 section 4.4.1's
    /// `allInThreadHaveKeyword`, `someInThreadHaveKeyword`, `noneInThreadHaveKeyword`).
    case threadKeyword(String, ThreadQuantifier)
    /// Substring (case-insensitive for ASCII) of the named field.
    case from(String)
    case to(String)
    case cc(String)
    case subject(String)
    case body(String)
    /// From, to, cc, subject or body.
    case text(String)
    case thread(String)
    /// Substring (case-insensitive for ASCII) of the `Bcc`, `Reply-To` or `Message-ID` field (Mailpit's search).
    case bcc(String)
    /// Substring (case-insensitive for ASCII) of an envelope recipient (`RCPT TO`) that the `To` and `Cc` fields do
    /// not hold: what Mailpit files as `Bcc` when it stores a message (its search's `bcc:`).
    case unnamedRecipient(String)
    case replyTo(String)
    case messageID(String)
    /// Whether the message has a part shown in its body (`Content-Disposition: inline`, or a `Content-ID` without a
    /// disposition), or a part to download (any other attachment): Mailpit's `has:inline` and `has:attachment`, and
    /// JMAP's `hasAttachment` (``MailAttachmentInfo/isShownInline`` is the same rule on a record).
    case hasInlinePart(Bool)
    case hasDownloadPart(Bool)
    /// Has this keyword, compared ignoring ASCII case (Mailpit's `tag:`).
    case hasKeywordIgnoringCase(String)
    /// One of these message ids (none: no message).
    case ids([String])
    /// Whether the message has a keyword that spells a tag (``MailTag``): Mailpit's `is:tagged`.
    case tagged(Bool)
    /// Substring (case-insensitive for ASCII) of the SMTP envelope's sender (`MAIL FROM`) or of its recipients (the
    /// `RCPT TO`s delivery kept), as the operator's search reads them.
    case envelopeFrom(String)
    case envelopeTo(String)
    /// Arrived after a point of the store's arrival order (the operator's `since`).
    case arrivedAfter(MailSearchPoint)
    /// Whether a one-time code was found in the message when it was stored (issue 85); a message not yet extracted
    /// has none.
    case hasCode(Bool)
    /// Has a link of this kind (issue 85).
    case hasLinkKind(LinkKind)
    /// Has a header field of this name (compared without ASCII case), and with `containing`, one whose value holds
    /// that text (a substring, case-insensitive for ASCII): JMAP's `header` condition (RFC 8621 section 4.4.1). The
    /// value is read from the message's header section as written, unfolded (RFC 5322 section 2.2.3): its RFC 2047
    /// encoded words are not decoded, as no column keeps a decoded header.
    case header(String, containing: String?)

    /// The SQL condition and its bindings, in `dialect`: SQLite's LIKE ignores ASCII case where PostgreSQL's
    /// ILIKE does; keywords are read from the JSON text with `json_extract` or `jsonb ->>`.
    func sql(_ dialect: SQLDialect = .sqlite) -> (String, [SQLValue]) {
        let (yes, no) = dialect == .sqlite ? ("1", "0") : ("TRUE", "FALSE")
        func like(_ column: String, _ text: String) -> (String, [SQLValue]) {
            let operation = dialect == .sqlite ? "LIKE" : "ILIKE"
            // A NULL column (no HTML body, no subject) is the empty text: NULL LIKE would make NOT (...) NULL too,
            // and a negated condition would drop the message.
            return ("COALESCE(\(column), '') \(operation) ? ESCAPE '\\'", [.text("%" + Self.escapeLike(text) + "%")])
        }
        func combine(_ filters: [MailFilter], _ joiner: String, empty: String) -> (String, [SQLValue]) {
            guard !filters.isEmpty else { return (empty, []) }
            let parts = filters.map { $0.sql(dialect) }
            return ("(" + parts.map(\.0).joined(separator: " \(joiner) ") + ")", parts.flatMap(\.1))
        }
        /// Whether the row (`table.` before the columns, when given) has the keyword, or lacks it.
        func keyword(_ keyword: String, present: Bool, table: String = "") -> (String, [SQLValue]) {
            if keyword == "$seen" { return ("\(table)is_read = \(present ? 1 : 0)", []) }
            switch (dialect, present) {
            case (.sqlite, true): return ("json_extract(\(table)keywords, ?) = 1", [.text(Self.keywordPath(keyword))])
            case (.sqlite, false):
                return ("json_extract(\(table)keywords, ?) IS NOT 1", [.text(Self.keywordPath(keyword))])
            case (.postgres, true): return ("(\(table)keywords::jsonb ->> ?) = 'true'", [.text(keyword)])
            case (.postgres, false):
                return ("(\(table)keywords::jsonb ->> ?) IS DISTINCT FROM 'true'", [.text(keyword)])
            }
        }
        /// Whether a keyword set to true passes `condition` (on `k.key`).
        func anyKeyword(_ condition: String) -> String {
            dialect == .sqlite
                ? "EXISTS (SELECT 1 FROM json_each(keywords) k WHERE k.value = 1 AND \(condition))"
                : "EXISTS (SELECT 1 FROM jsonb_each_text(keywords::jsonb) k WHERE k.value = 'true' AND \(condition))"
        }
        switch self {
        case .all(let filters): return combine(filters, "AND", empty: yes)
        case .any(let filters): return combine(filters, "OR", empty: no)
        case .none(let filters):
            let (inner, values) = combine(filters, "OR", empty: no)
            return ("NOT \(inner)", values)
        case .inFolder(let folder): return ("folder = ?", [.text(folder.rawValue)])
        case .notInFolders(let folders):
            guard !folders.isEmpty else { return (yes, []) }
            let marks = Array(repeating: "?", count: folders.count).joined(separator: ", ")
            return ("folder NOT IN (\(marks))", folders.map { .text($0.rawValue) })
        case .before(let time): return ("received_at < ?", [.integer(time)])
        case .after(let time): return ("received_at >= ?", [.integer(time)])
        case .minSize(let size): return ("size >= ?", [.integer(size)])
        case .maxSize(let size): return ("size < ?", [.integer(size)])
        case .hasKeyword(let name): return keyword(name, present: true)
        case .notKeyword(let name): return keyword(name, present: false)
        case .threadKeyword(let name, let quantifier):
            // Every message of the thread has it: none lacks it. Some: one has it. None: not one has it.
            let (condition, values) = keyword(name, present: quantifier != .all, table: "t.")
            let exists =
                "EXISTS (SELECT 1 FROM mail_messages t WHERE t.address = mail_messages.address"
                + " AND t.thread_id = mail_messages.thread_id AND \(condition))"
            return (quantifier == .some ? exists : "NOT " + exists, values)
        case .from(let text): return like("from_json", text)
        case .to(let text): return like("to_json", text)
        case .cc(let text): return like("cc_json", text)
        case .subject(let text): return like("subject", text)
        case .body(let text):
            let (a, x) = like("text_body", text), (b, y) = like("html_body", text)
            return ("(\(a) OR \(b))", x + y)
        case .text(let text):
            let parts = ["from_json", "to_json", "cc_json", "subject", "text_body", "html_body"].map { like($0, text) }
            return ("(" + parts.map(\.0).joined(separator: " OR ") + ")", parts.flatMap(\.1))
        case .thread(let id): return ("thread_id = ?", [.text(id)])
        case .hasKeywordIgnoringCase(let name):
            return (anyKeyword("LOWER(k.key) = LOWER(?)"), [.text(name)])
        case .ids(let ids):
            guard !ids.isEmpty else { return (no, []) }
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            return ("id IN (\(marks))", ids.map(SQLValue.text))
        case .bcc(let text): return like("bcc_json", text)
        case .unnamedRecipient(let text):
            let parts = [like("envelope_to", text), like("to_json", text), like("cc_json", text)]
            return ("(\(parts[0].0) AND NOT \(parts[1].0) AND NOT \(parts[2].0))", parts.flatMap(\.1))
        case .replyTo(let text): return like("reply_to_json", text)
        case .messageID(let text): return like("message_id", text)
        case .hasInlinePart(let wanted): return Self.partExists(inline: true, wanted)
        case .hasDownloadPart(let wanted): return Self.partExists(inline: false, wanted)
        case .tagged(let wanted):
            // A tag's keyword starts with a letter, a digit or one of `-_.@` (MailTag): never `$`.
            let exists = anyKeyword("k.key NOT LIKE '$%'")
            return (wanted ? exists : "NOT " + exists, [])
        case .envelopeFrom(let text): return like("envelope_from", text)
        case .envelopeTo(let text): return like("envelope_to", text)
        case .arrivedAfter(.message(let receivedAt, let sequence)):
            return (
                "(received_at > ? OR (received_at = ? AND received_seq > ?))",
                [.integer(receivedAt), .integer(receivedAt), .integer(sequence)]
            )
        case .arrivedAfter(.second(let second)): return ("received_at >= ?", [.integer(second)])
        case .hasCode(let wanted):
            let exists = Self.extractionHas("e.best_code IS NOT NULL")
            return (wanted ? exists : "NOT " + exists, [])
        case .hasLinkKind(let kind):
            return (Self.extractionHas("e.link_kinds LIKE ?"), [.text("% " + kind.rawValue + " %")])
        case .header(let name, let containing): return Self.headerField(name, containing, dialect)
        }
    }

    /// Whether the message's extraction (`mail_extractions`, migration 0068) passes `condition` (on `e`).
    private static func extractionHas(_ condition: String) -> String {
        "EXISTS (SELECT 1 FROM mail_extractions e WHERE e.message_id = mail_messages.id AND \(condition))"
    }

    /// Whether a part shown in the body (`inline`) or one to download exists, or not when `wanted` is false.
    private static func partExists(inline: Bool, _ wanted: Bool) -> (String, [SQLValue]) {
        let shown = "(a.disposition = 'inline' OR (a.disposition IS NULL AND a.content_id IS NOT NULL))"
        let exists =
            "EXISTS (SELECT 1 FROM mail_attachments a WHERE a.message_id = mail_messages.id AND "
            + (inline ? shown : "NOT " + shown) + ")"
        return (wanted ? exists : "NOT " + exists, [])
    }

    static func escapeLike(_ text: String) -> String {
        var out = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// A JSON path naming one key, quoted so that any keyword text is taken literally.
    private static func keywordPath(_ keyword: String) -> String {
        "$.\"" + keyword.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }
}

/// How many of a thread's messages a ``MailFilter/threadKeyword(_:_:)`` asks to have the keyword.
public enum ThreadQuantifier: Sendable, Equatable {
    case all, some, none
}

/// The order of an `Email/query` result: one of JMAP's sort properties and a direction.
public struct MailSort: Sendable, Equatable {
    public enum Property: String, Sendable, CaseIterable {
        case receivedAt, sentAt, size, subject, from, to
    }

    public var property: Property
    public var ascending: Bool

    public init(property: Property, ascending: Bool) {
        self.property = property
        self.ascending = ascending
    }

    /// The ORDER BY term in `dialect`: text sorts ignore ASCII case (SQLite's NOCASE, PostgreSQL's lower()),
    /// and a missing subject sorts first ascending on both, as SQLite puts NULL first.
    func sql(_ dialect: SQLDialect = .sqlite) -> String {
        let direction = ascending ? " ASC" : " DESC"
        // Arrival order breaks a tie within one second of `received_at`, in the sort's own direction.
        if property == .receivedAt { return "received_at" + direction + ", received_seq" + direction }
        let column: String
        func folded(_ name: String) -> String {
            dialect == .sqlite ? "\(name) COLLATE NOCASE" : "lower(\(name))"
        }
        switch property {
        case .receivedAt: column = "received_at"  // returned above
        case .sentAt: column = "COALESCE(sent_at, received_at)"
        case .size: column = "size"
        case .subject: column = folded("subject")
        case .from: column = folded("from_json")
        case .to: column = folded("to_json")
        }
        let nulls = dialect == .sqlite ? "" : (ascending ? " NULLS FIRST" : " NULLS LAST")
        return column + direction + nulls
    }
}
