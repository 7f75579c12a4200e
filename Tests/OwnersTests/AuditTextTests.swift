import Audit
import Testing

/// What the audit trail shows of text a stranger typed: no control character reaches a terminal or a page raw.
@Suite("Audit: text shown safely")
struct AuditTextTests {
    /// Every scalar `escaped` must never let through raw: C0, DEL, C1, the line and paragraph separators and the
    /// bidirectional formatting characters.
    static let controls: [Unicode.Scalar] = {
        var values: [UInt32] = Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F)
        values += [0x2028, 0x2029, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069]
        return values.compactMap(Unicode.Scalar.init)
    }()

    @Test("each control character is escaped, alone and inside text; other text is kept as it is")
    func everyControl() {
        for scalar in Self.controls {
            let text = "a" + String(Character(scalar)) + "b"
            #expect(AuditText.containsControl(text), "U+\(String(scalar.value, radix: 16))")
            let shown = AuditText.escaped(text)
            #expect(!AuditText.containsControl(shown), "U+\(String(scalar.value, radix: 16))")
            #expect(shown.hasPrefix("a\\u{") && shown.hasSuffix("}b"), "\(shown)")
        }
        #expect(AuditText.escaped("\n") == "\\u{0A}")
        #expect(AuditText.escaped("\u{1B}[2J") == "\\u{1B}[2J")
        #expect(AuditText.escaped("x\u{2028}y") == "x\\u{2028}y")
        #expect(AuditText.escaped("\u{9B}31m") == "\\u{9B}31m")
        for plain in ["ada@example.com", "Zoë <zoe@example.com>", "日本語", "a\\b", "tab-free 😀", ""] {
            #expect(!AuditText.containsControl(plain))
            #expect(AuditText.escaped(plain) == plain)
        }
    }

    @Test("a forged line stays on the line it was typed in")
    func forgedLine() {
        let typed = "x@example.com\r\n2026-11-26T07:00:00Z  owner.signin  owner 1  ada@example.com\u{85}\u{2029}"
        let shown = AuditText.escaped(typed)
        #expect(!shown.contains("\n") && !shown.contains("\r") && !shown.contains("\u{85}"))
        #expect(shown.split(whereSeparator: \.isNewline).count == 1)
    }
}
