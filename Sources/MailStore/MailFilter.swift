import Foundation
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
    case hasAttachment(Bool)
    /// Substring (case-insensitive for ASCII) of the named field.
    case from(String)
    case to(String)
    case cc(String)
    case subject(String)
    case body(String)
    /// From, to, cc, subject or body.
    case text(String)
    case thread(String)

    /// The SQL condition and its bindings, in `dialect`: SQLite's LIKE ignores ASCII case where PostgreSQL's
    /// ILIKE does; keywords are read from the JSON text with `json_extract` or `jsonb ->>`.
    func sql(_ dialect: SQLDialect = .sqlite) -> (String, [SQLValue]) {
        let (yes, no) = dialect == .sqlite ? ("1", "0") : ("TRUE", "FALSE")
        func like(_ column: String, _ text: String) -> (String, [SQLValue]) {
            let operation = dialect == .sqlite ? "LIKE" : "ILIKE"
            return ("\(column) \(operation) ? ESCAPE '\\'", [.text("%" + Self.escapeLike(text) + "%")])
        }
        func combine(_ filters: [MailFilter], _ joiner: String, empty: String) -> (String, [SQLValue]) {
            guard !filters.isEmpty else { return (empty, []) }
            let parts = filters.map { $0.sql(dialect) }
            return ("(" + parts.map(\.0).joined(separator: " \(joiner) ") + ")", parts.flatMap(\.1))
        }
        func keyword(_ keyword: String, present: Bool) -> (String, [SQLValue]) {
            switch (dialect, present) {
            case (.sqlite, true): return ("json_extract(keywords, ?) = 1", [.text(Self.keywordPath(keyword))])
            case (.sqlite, false): return ("json_extract(keywords, ?) IS NOT 1", [.text(Self.keywordPath(keyword))])
            case (.postgres, true): return ("(keywords::jsonb ->> ?) = 'true'", [.text(keyword)])
            case (.postgres, false): return ("(keywords::jsonb ->> ?) IS DISTINCT FROM 'true'", [.text(keyword)])
            }
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
        case .hasKeyword(let name):
            if name == "$seen" { return ("is_read = 1", []) }
            return keyword(name, present: true)
        case .notKeyword(let name):
            if name == "$seen" { return ("is_read = 0", []) }
            return keyword(name, present: false)
        case .hasAttachment(let wanted):
            let exists = "EXISTS (SELECT 1 FROM mail_attachments a WHERE a.message_id = mail_messages.id)"
            return (wanted ? exists : "NOT " + exists, [])
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
        }
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
