import JSON
import Testing

@testable import MailStore
@testable import MailCX
@testable import MailboxAccounts
@testable import MailboxRoutes

@Suite("mail.cx sockets: the new_email event's preview_text is the first 100 characters")
struct MailboxSocketEventTests {
    static let account = MailboxAccountRecord(
        id: "account-1", address: "user@example.com", passwordHash: "", authVerifier: nil, ownerID: nil, quota: 0,
        used: 0, tokenEpoch: 0, createdAt: 0)

    static func summary(preview: String) -> MailSummary {
        MailSummary(
            id: "message-1", address: "user@example.com", folder: .inbox, envelopeFrom: "app@example.com",
            from: [], subject: "Code", preview: preview, size: 10, isRead: false, receivedAt: 1_700_000_000,
            threadID: "message-1", keywords: [])
    }

    static func previewText(of preview: String) throws -> String? {
        let event = MailCXSocketSession.event(summary(preview: preview), accountID: account.id, address: account.address)
        return try JSONValue.parse(Array(event.utf8))["preview_text"]?.stringValue
    }

    @Test("a 256-character stored preview: the event carries its first 100, the list object all 256")
    func long() throws {
        let stored = String(repeating: "abcdefghij", count: 25) + "klmnop"
        #expect(stored.count == 256)
        #expect(try Self.previewText(of: stored) == String(stored.prefix(100)))
        let listed = MailboxMessageJSON.summaryPairs(Self.summary(preview: stored)).first { $0.0 == "preview_text" }
        #expect(listed?.1.stringValue == stored)
    }

    @Test("short previews pass whole, exactly 100 included")
    func short() throws {
        #expect(try Self.previewText(of: "") == "")
        #expect(try Self.previewText(of: "Code: 424242") == "Code: 424242")
        let hundred = String(repeating: "é", count: 100)
        #expect(try Self.previewText(of: hundred) == hundred)
    }

    @Test("multi-byte characters at the cut: whole characters only, never a split UTF-8 sequence")
    func multiByte() throws {
        // 99 ASCII, then a 4-byte emoji (the 100th scalar) and a 3-byte CJK character (the 101st).
        let stored = String(repeating: "a", count: 99) + "😀" + "漢字" + String(repeating: "b", count: 50)
        let cut = try #require(try Self.previewText(of: stored))
        #expect(cut == String(repeating: "a", count: 99) + "😀")
        #expect(cut.unicodeScalars.count == 100)
        #expect(Array(cut.utf8) == Array(stored.utf8.prefix(cut.utf8.count)))
        // 98 ASCII then a flag (two regional-indicator scalars, one character) then more: the flag fits exactly.
        let flag = String(repeating: "a", count: 98) + "🇫🇷" + "xyz"
        #expect(try Self.previewText(of: flag) == String(repeating: "a", count: 98) + "🇫🇷")
        // 99 ASCII then the flag: its second scalar would be the 101st, so the whole flag is left out.
        let over = String(repeating: "a", count: 99) + "🇫🇷" + "xyz"
        #expect(try Self.previewText(of: over) == String(repeating: "a", count: 99))
        // An accent combined onto the 100th letter (e + U+0301) is one character of two scalars: left out whole.
        let combined = String(repeating: "a", count: 99) + "e\u{301}" + "tc"
        #expect(try Self.previewText(of: combined) == String(repeating: "a", count: 99))
    }

    @Test("a cut that ends on a space leaves no trailing space")
    func trailingSpace() throws {
        let stored = String(repeating: "word ", count: 40)  // a space at every fifth place, the 100th among them
        let cut = try #require(try Self.previewText(of: stored))
        #expect(cut == String(String(repeating: "word ", count: 20).dropLast()))
        #expect(cut.count == 99)
    }
}
