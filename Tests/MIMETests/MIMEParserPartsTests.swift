import Testing

@testable import MIME

/// Which leaves delivery files as the text and HTML bodies and which as attachments: RFC 8621 §4.1.4's algorithm, the
/// one JMAP's ``EmailBodyStructure`` runs (issue 87). Each message is written out byte for byte; each test also checks
/// that the stored parts' has-attachment (a part not `inline` and not a `Content-ID` without a disposition) is the one
/// JMAP reads from the structure (an attachment not `inline`; one with only a `Content-ID` is a `cid:` image, which
/// RFC 8621 4.1.4 lets a server leave out).
@Suite("MIME parser: bodies and attachments (RFC 8621 4.1.4)")
struct MIMEParserPartsTests {
    struct Filed {
        var message: ParsedMessage
        var structure: EmailBodyStructure
    }

    static func parse(_ text: String) throws -> Filed {
        let raw = Array(text.utf8)
        let filed = Filed(message: try MIMEParser.parse(raw), structure: EmailBodyStructure(raw[...]))
        let stored = filed.message.attachments.contains {
            $0.disposition != "inline" && !($0.disposition == nil && $0.contentID != nil)
        }
        let listed = filed.structure.attachments.contains {
            $0.disposition != "inline" && !($0.disposition == nil && $0.cid != nil)
        }
        #expect(stored == listed, "the stored parts' has-attachment is JMAP's")
        return filed
    }

    /// The stored attachments as `name type disposition`, `-` for a nil.
    static func described(_ message: ParsedMessage) -> [String] {
        message.attachments.map { "\($0.filename ?? "-") \($0.contentType) \($0.disposition ?? "-")" }
    }

    @Test("two text/plain parts of a multipart/mixed are one text, joined in order; nothing is an attachment")
    func twoTextParts() throws {
        let filed = try Self.parse(
            """
            From: Foo <test@example.org>\r
            Subject: a test subject\r
            MIME-Version: 1.0\r
            Content-Type: multipart/mixed; boundary="b1"\r
            \r
            --b1\r
            Content-Type: text/plain\r
            Content-ID: <fooz>\r
            Content-Language: US\r
            \r
            this is a text part\r
            --b1\r
            Content-Type: text/plain\r
            \r
            this is a second text part\r
            --b1--\r

            """)
        #expect(filed.message.textBody == "this is a text part\nthis is a second text part")
        #expect(filed.message.htmlBody == nil)
        #expect(filed.message.attachments.isEmpty)
        #expect(filed.message.preview == "this is a text part this is a second text part")
        #expect(filed.structure.textBody.map(\.partID) == ["1", "2"])
        #expect(filed.structure.htmlBody.map(\.partID) == ["1", "2"])
        #expect(filed.structure.attachments.isEmpty)
    }

    @Test(
        "a text/plain part after the first is an attachment when it is named (without a disposition) or says attachment",
        arguments: [
            ("Content-Type: text/plain; charset=utf-8; name=\"notes.txt\"", "notes.txt text/plain -"),
            ("Content-Type: text/plain\r\nContent-Disposition: attachment", "- text/plain attachment"),
        ])
    func textAttachment(_ header: String, _ filed: String) throws {
        let result = try Self.parse(
            """
            Subject: notes\r
            Content-Type: multipart/mixed; boundary=b2\r
            \r
            --b2\r
            Content-Type: text/plain; charset=utf-8\r
            \r
            See the notes.\r
            --b2\r
            \(header)\r
            \r
            line one\r
            --b2--\r

            """)
        #expect(result.message.textBody == "See the notes.")
        #expect(Self.described(result.message) == [filed])
        #expect(result.message.attachments.first?.data == Array("line one".utf8))
        #expect(result.structure.textBody.map(\.partID) == ["1"])
        #expect(result.structure.attachments.map(\.partID) == ["2"])
    }

    @Test("Content-Disposition: attachment makes the message's only part, a text/plain one, an attachment")
    func onlyPartAttachment() throws {
        let only = try Self.parse("Subject: only\r\nContent-Disposition: attachment; filename=a.txt\r\n\r\nx\r\n")
        #expect(only.message.textBody == nil && only.message.htmlBody == nil)
        #expect(Self.described(only.message) == ["a.txt text/plain attachment"])
        #expect(only.structure.attachments.map(\.partID) == ["1"])
    }

    @Test("an image of a multipart/related is an attachment to show by its Content-ID, not one to download")
    func imageInRelated() throws {
        let filed = try Self.parse(
            """
            Subject: logo\r
            Content-Type: multipart/related; type="text/html"; boundary=b3\r
            \r
            --b3\r
            Content-Type: text/html; charset=us-ascii\r
            \r
            <p><img src="cid:logo@x"></p>\r
            --b3\r
            Content-Type: image/png\r
            Content-ID: <logo@x>\r
            Content-Transfer-Encoding: base64\r
            \r
            iVBORw0KGgo=\r
            --b3--\r

            """)
        #expect(filed.message.textBody == nil)
        #expect(filed.message.htmlBody == "<p><img src=\"cid:logo@x\"></p>")
        #expect(Self.described(filed.message) == ["- image/png -"])
        #expect(filed.message.attachments.first?.contentID == "logo@x")
        #expect(filed.message.attachments.first?.data == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(filed.structure.attachments.map(\.partID) == ["2"])
    }

    @Test("a multipart/alternative of text and HTML is the two bodies and no attachment")
    func alternative() throws {
        let filed = try Self.parse(
            """
            Subject: both\r
            Content-Type: multipart/alternative; boundary=b4\r
            \r
            --b4\r
            Content-Type: text/plain; charset=utf-8\r
            \r
            Hello\r
            --b4\r
            Content-Type: text/html; charset=utf-8\r
            \r
            <b>Hello</b>\r
            --b4--\r

            """)
        #expect(filed.message.textBody == "Hello")
        #expect(filed.message.htmlBody == "<b>Hello</b>")
        #expect(filed.message.attachments.isEmpty)
        #expect(filed.structure.textBody.map(\.partID) == ["1"] && filed.structure.htmlBody.map(\.partID) == ["2"])
    }

    @Test("an image between two texts of a multipart/mixed is shown in the body: kept, as inline, the texts joined")
    func inlineImageInMixed() throws {
        let filed = try Self.parse(
            """
            Subject: photo\r
            Content-Type: multipart/mixed; boundary=b5\r
            \r
            --b5\r
            Content-Type: text/plain\r
            \r
            Before the photo.\r
            \r
            --b5\r
            Content-Type: image/jpeg; name="IMG_1.jpg"\r
            Content-Transfer-Encoding: base64\r
            \r
            /9j/\r
            --b5\r
            Content-Type: text/plain\r
            \r
            After it.\r
            --b5--\r

            """)
        #expect(filed.message.textBody == "Before the photo.\r\nAfter it.")
        #expect(Self.described(filed.message) == ["IMG_1.jpg image/jpeg inline"])
        #expect(filed.message.attachments.first?.data == [0xFF, 0xD8, 0xFF])
        #expect(filed.structure.textBody.map(\.partID) == ["1", "2", "3"])
        #expect(filed.structure.attachments.isEmpty)
    }

    @Test("an image beside only the HTML of an alternative is in the body and an attachment: kept as it says")
    func imageBesideHTMLOnly() throws {
        let filed = try Self.parse(
            """
            Subject: apple\r
            Content-Type: multipart/alternative; boundary=b7\r
            \r
            --b7\r
            Content-Type: text/plain\r
            \r
            Hi\r
            --b7\r
            Content-Type: multipart/mixed; boundary=b8\r
            \r
            --b8\r
            Content-Type: text/html\r
            \r
            <p>Hi</p>\r
            --b8\r
            Content-Type: image/gif\r
            \r
            GIF\r
            --b8\r
            Content-Type: text/html\r
            \r
            <p>Bye</p>\r
            --b8--\r
            --b7--\r

            """)
        #expect(filed.message.textBody == "Hi")
        #expect(filed.message.htmlBody == "<p>Hi</p><p>Bye</p>")
        #expect(Self.described(filed.message) == ["- image/gif -"])
        #expect(filed.structure.htmlBody.map(\.partID) == ["2", "3", "4"])
        #expect(filed.structure.attachments.map(\.partID) == ["3"])
    }

    @Test("RFC 8621 4.1.4's own example: text A B D K, HTML E, attachments C F G H J in the message's order")
    func rfcExample() throws {
        let raw = EmailBodyStructureTests.example
        let message = try MIMEParser.parse(raw)
        #expect(message.textBody == "A\nB\nD\u{C3}\u{A9}\nK")  // D: UTF-8 bytes read as its ISO-8859-1
        #expect(message.htmlBody == "<p>E</p>")
        #expect(
            Self.described(message) == [
                "- image/jpeg -", "f.jpg image/jpeg -", "g.jpg image/jpeg attachment", "- application/x-excel -",
                "- message/rfc822 -",
            ])
    }

    @Test("a part of a multipart/digest without a Content-Type is a message/rfc822 (RFC 2046 5.1.5), as JMAP reads it")
    func digest() throws {
        let filed = try Self.parse(
            """
            Subject: digest\r
            Content-Type: multipart/mixed; boundary=d0\r
            \r
            --d0\r
            Content-Type: text/plain\r
            \r
            Today's digest.\r
            --d0\r
            Content-Type: multipart/digest; boundary=d1\r
            \r
            --d1\r
            \r
            Subject: one\r
            \r
            first\r
            --d1--\r
            --d0--\r

            """)
        #expect(filed.message.textBody == "Today's digest.")
        #expect(Self.described(filed.message) == ["- message/rfc822 -"])
        let inner = filed.message.attachments.first.map { String(decoding: $0.data, as: UTF8.self) }
        #expect(inner == "Subject: one\r\n\r\nfirst")
        #expect(filed.structure.leaves.map(\.type) == ["text/plain", "message/rfc822"])
    }

    @Test("a text body of several parts: a line break only between two, where the first does not end with one")
    func joinedText() {
        #expect(MIMEParser.joinedText([]) == nil)
        #expect(MIMEParser.joinedText(["a"]) == "a")
        #expect(MIMEParser.joinedText(["a", "b", "c"]) == "a\nb\nc")
        #expect(MIMEParser.joinedText(["a\r\n", "b\n", "c"]) == "a\r\nb\nc")
        #expect(MIMEParser.joinedText(["", "b"]) == "b")
    }
}
