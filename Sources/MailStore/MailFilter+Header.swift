import MIME
import Storage

/// ``MailFilter/header(_:containing:)`` in SQL: the message's header section read from its raw bytes, the same lines
/// and the same matching on both backends.
extension MailFilter {
    /// Whether a line of the message's header section (its raw bytes up to the first empty line, CRs dropped, folded
    /// lines joined: RFC 5322 section 2.2.3) is field `name` (white space before the colon allowed, as RFC 5322
    /// section 4.5 reads it) and, with `containing`, its value holds that text. ASCII letters match without case,
    /// every other byte as it is: SQLite reads the bytes as UTF-8 text, its LIKE and lower() folding ASCII alone;
    /// PostgreSQL reads them through encode(…, 'escape'), which no byte fails (a NUL or a byte past 0x7F is `\ooo`, a
    /// backslash doubled), the name and the needle spelled so too, and folds with translate() (ASCII alone, where
    /// ILIKE and lower() follow the locale). A LIKE over the whole section first passes over the messages that have
    /// no line starting with the name, before any line is split out.
    ///
    /// Bounded for a message of any shape (its own account's to send, or to import): the section read is at most
    /// ``headerSectionBytes``, and SQLite, which splits it line by line, each step copying the rest, stops after the
    /// MIME parser's most header fields (``MIMELimits/maximumHeaderCount``); a message without a body is otherwise all
    /// header section, and its lines' copies grew with its size squared.
    static func headerField(_ name: String, _ containing: String?, _ dialect: SQLDialect) -> (String, [SQLValue]) {
        let raw = "mail_messages.raw"
        let lines: String
        let spelled: (String) -> String
        switch dialect {
        case .sqlite:
            let end = headerEnd(crlf: "instr(\(raw), X'0D0A0D0A')", lf: "instr(\(raw), X'0A0A')", raw)
            let section = "CAST(substr(\(raw), 1, min(\(end), \(Self.headerSectionBytes))) AS TEXT)"
            spelled = { $0 }
            lines = """
                WITH RECURSIVE h(text) AS (SELECT \(unfolded(section, "char")) || char(10)),
                    lines(line, rest, n) AS (
                        SELECT NULL, text, 0 FROM h WHERE char(10) || text LIKE ? ESCAPE '\\'
                        UNION ALL
                        SELECT substr(rest, 1, instr(rest, char(10)) - 1), substr(rest, instr(rest, char(10)) + 1),
                            n + 1
                            FROM lines WHERE rest <> '' AND n < \(MIMELimits.default.maximumHeaderCount))
                SELECT 1 FROM lines WHERE instr(line, ':') > 0
                    AND lower(rtrim(substr(line, 1, instr(line, ':') - 1), ' ' || char(9))) = ?
                """
        case .postgres:
            let end = headerEnd(
                crlf: "position(decode('0d0a0d0a', 'hex') in \(raw))", lf: "position(decode('0a0a', 'hex') in \(raw))", raw)
            let section = "encode(substring(\(raw) from 1 for LEAST(\(end), \(Self.headerSectionBytes))), 'escape')"
            spelled = escapeEncoded
            lines = """
                SELECT 1 FROM (SELECT translate(\(unfolded(section, "chr")), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
                        'abcdefghijklmnopqrstuvwxyz') AS text) h,
                    regexp_split_to_table(h.text, chr(10)) AS l(line)
                    WHERE chr(10) || h.text LIKE ? ESCAPE '\\' AND position(':' in line) > 0
                    AND rtrim(split_part(line, ':', 1), ' ' || chr(9)) = ?
                """
        }
        let field = spelled(asciiLowercased(name))
        var values: [SQLValue] = [.text("%\n" + escapeLike(field) + "%"), .text(field)]
        var condition = "EXISTS (" + lines
        if let containing {
            let value = dialect == .sqlite ? "substr(line, instr(line, ':') + 1)" : "substr(line, position(':' in line) + 1)"
            condition += " AND \(value) LIKE ? ESCAPE '\\'"
            // SQLite's LIKE folds ASCII itself; PostgreSQL's section is folded already.
            values.append(.text("%" + escapeLike(spelled(dialect == .sqlite ? containing : asciiLowercased(containing))) + "%"))
        }
        return (condition + ")", values)
    }

    /// The most bytes of a message's header section the `header` condition reads (real sections are a few KiB; past
    /// this, a field is not found).
    static let headerSectionBytes = 64 << 10

    /// Where the header section of `raw` ends (1-based, its last byte): at the first CRLF CRLF or LF LF, whichever
    /// comes first (`crlf` and `lf` find them, 0 when absent); the whole message when it has no body.
    private static func headerEnd(crlf: String, lf: String, _ raw: String) -> String {
        "CASE WHEN \(crlf) > 0 AND (\(lf) = 0 OR \(crlf) < \(lf)) THEN \(crlf) + 1 WHEN \(lf) > 0 THEN \(lf)"
            + " ELSE length(\(raw)) END"
    }

    /// `section` with its CRs dropped and each line that starts with white space joined to the one before it;
    /// `function` makes a character of a code (SQLite's `char`, PostgreSQL's `chr`).
    private static func unfolded(_ section: String, _ function: String) -> String {
        let (newline, tab) = ("\(function)(10)", "\(function)(9)")
        return "replace(replace(replace(\(section), \(function)(13), ''), \(newline) || ' ', ' '), \(newline) || \(tab), \(tab))"
    }

    /// `text`'s UTF-8 bytes as PostgreSQL's encode(…, 'escape') writes them: a NUL and every byte past 0x7F as a
    /// backslash and three octal digits, a backslash doubled, every other byte as itself.
    static func escapeEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if byte == 0 || byte >= 0x80 {
                let octal = String(byte, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            } else if byte == UInt8(ascii: "\\") {
                out += "\\\\"
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    /// `text` with ASCII capitals made small and every other character kept.
    static func asciiLowercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }
}
