import MailStore
import Testing

@testable import MailpitAPI

/// Mailpit's search syntax read into the store's filter, pure: each operator, negation, quotes, and what is ignored.
@Suite struct MailpitSearchTests {
    @Test("words split at spaces outside quotes; the quotes go")
    func words() {
        #expect(
            MailpitSearch.words(#"from:a "two words" subject:"x y"  -tag:z"#) == [
                "from:a", "two words", "subject:x y", "-tag:z",
            ])
        #expect(MailpitSearch.words("   ").isEmpty)
    }

    @Test("each operator is its field's condition")
    func operators() {
        #expect(MailpitSearch.filter("to:Bob") == .all([.to("bob")]))
        #expect(MailpitSearch.filter("from:<a@x.org>") == .all([.from("a@x.org")]))
        #expect(MailpitSearch.filter("cc:c") == .all([.cc("c")]))
        #expect(MailpitSearch.filter("bcc:d") == .all([.any([.bcc("d"), .unnamedRecipient("d")])]))
        #expect(MailpitSearch.filter("reply-to:e") == .all([.replyTo("e")]))
        #expect(MailpitSearch.filter("message-id:<m@x>") == .all([.messageID("m@x")]))
        #expect(
            MailpitSearch.filter("addressed:f")
                == .all([.any([.to("f"), .from("f"), .cc("f"), MailpitSearch.bcc("f"), .replyTo("f")])]))
        #expect(MailpitSearch.filter(#"subject:"Hello There""#) == .all([.subject("Hello There")]))
        #expect(MailpitSearch.filter(#"tag:"Tag 1""#) == .all([.hasKeywordIgnoringCase("tag+1")]))
        #expect(
            MailpitSearch.filter("is:read is:UNREAD is:tagged")
                == .all([
                    .hasKeyword("$seen"), .notKeyword("$seen"), .tagged(true),
                ]))
        #expect(
            MailpitSearch.filter("has:attachment has:inlines") == .all([.hasDownloadPart(true), .hasInlinePart(true)]))
    }

    @Test("a leading - or ! negates; a bare - is text")
    func negation() {
        #expect(MailpitSearch.filter("-to:bob") == .all([.none([.to("bob")])]))
        #expect(MailpitSearch.filter("!subject:x") == .all([.none([.subject("x")])]))
        #expect(MailpitSearch.filter("-is:read") == .all([.notKeyword("$seen")]))
        #expect(MailpitSearch.filter("-has:attachment") == .all([.hasDownloadPart(false)]))
        #expect(MailpitSearch.filter("-larger:1k") == .all([.maxSize(1024)]))
        #expect(
            MailpitSearch.filter(#"-"two words""#)
                == .all([.none([.any([.text("two words"), MailpitSearch.bcc("two words"), .replyTo("two words")])])]))
    }

    @Test("dates: a day, a time with an offset; an unreadable date is ignored")
    func dates() {
        // 2024-01-31T00:00:00Z is 1706659200.
        #expect(MailpitSearch.filter("after:2024-01-31") == .all([.after(1_706_659_200)]))
        #expect(MailpitSearch.filter("before:2024/01/31") == .all([.before(1_706_659_201)]))
        #expect(MailpitSearch.filter("-after:2024-01-31") == .all([.before(1_706_659_201)]))
        #expect(MailpitSearch.filter("-before:2024-01-31") == .all([.after(1_706_659_200)]))
        let withOffset: Int64 = 1_706_659_200 + 8 * 3600 + 30
        #expect(MailpitSearch.date("2024-01-31T10:00:30+02:00") == withOffset)
        let inQuotes: Int64 = 1_706_659_200 + 10 * 3600
        #expect(MailpitSearch.date("2024-01-31 10:00") == inQuotes)
        #expect(MailpitSearch.date("2024-02-30") == nil)
        #expect(MailpitSearch.filter("after:yesterday") == .all([]))
    }

    @Test("sizes: bytes, k and m; an unreadable size is text")
    func sizes() {
        #expect(MailpitSearch.filter("larger:100") == .all([.minSize(101)]))
        #expect(MailpitSearch.filter("smaller:1.5k") == .all([.maxSize(1536)]))
        #expect(MailpitSearch.filter("smaller:2MB") == .all([.maxSize(2 * 1024 * 1024)]))
        #expect(
            MailpitSearch.filter("larger:lots")
                == .all([.any([.text("larger:lots"), MailpitSearch.bcc("larger:lots"), .replyTo("larger:lots")])]))
        #expect(MailpitSearch.size("0") == nil)
        #expect(MailpitSearch.size("1gb") == nil)
    }

    @Test("an operator with nothing after it asks for nothing")
    func empty() {
        #expect(MailpitSearch.filter("to: from:\"\" subject:") == .all([]))
    }
}
