import Testing

@testable import MIME

/// Known answers from messages shaped like real mail: what Gmail, Outlook and Apple Mail send, and broken mail.
@Suite("MIME parser: real-world messages")
struct MIMEParserTests {
    static func parse(_ text: String) throws -> ParsedMessage {
        try MIMEParser.parse(Array(text.utf8))
    }

    @Test("Gmail-style multipart/alternative with an encoded-word subject and display names")
    func gmail() throws {
        let message = try Self.parse(
            """
            MIME-Version: 1.0\r
            Date: Mon, 15 Jun 2025 15:06:40 +0200\r
            Message-ID: <CAB=abc123@mail.gmail.com>\r
            Subject: =?UTF-8?B?VmVyaWZ5IHlvdXIgYWNjb3VudCDinJM=?=\r
            From: "Ann Example" <ann@example.com>\r
            To: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <jm@mail.localhost>, bob@mail.localhost\r
            Cc: "Last, First" <lf@example.com> (work)\r
            In-Reply-To: <parent@example.com>\r
            References: <root@example.com>\r
             <parent@example.com>\r
            Content-Type: multipart/alternative; boundary="000000000000b1c2d3"\r
            \r
            --000000000000b1c2d3\r
            Content-Type: text/plain; charset="UTF-8"\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            Your code is 123456.=0D=0A=E2=9C=93 Soft=\r
             break.\r
            --000000000000b1c2d3\r
            Content-Type: text/html; charset="UTF-8"\r
            \r
            <div dir="ltr">Your code is <b>123456</b>.</div>\r
            --000000000000b1c2d3--\r

            """)
        #expect(message.subject == "Verify your account ✓")
        #expect(message.from == [MailAddress(name: "Ann Example", email: "ann@example.com")])
        #expect(
            message.to == [
                MailAddress(name: "Jürgen Müller", email: "jm@mail.localhost"), MailAddress(email: "bob@mail.localhost"),
            ])
        #expect(message.cc == [MailAddress(name: "Last, First", email: "lf@example.com")])
        #expect(message.messageID == "CAB=abc123@mail.gmail.com")
        #expect(message.inReplyTo == ["parent@example.com"])
        #expect(message.references == ["root@example.com", "parent@example.com"])
        #expect(message.date == 1_749_992_800)
        #expect(message.textBody == "Your code is 123456.\r\n✓ Soft break.")
        #expect(message.htmlBody == "<div dir=\"ltr\">Your code is <b>123456</b>.</div>")
        #expect(message.attachments.isEmpty)
        #expect(message.preview == "Your code is 123456. ✓ Soft break.")
        #expect(message.headers.first { $0.name == "Subject" }?.value == "Verify your account ✓")
    }

    @Test("Outlook-style: windows-1252 quoted-printable text and a base64 PDF attachment with an RFC 2231 name")
    func outlook() throws {
        let message = try Self.parse(
            """
            From: =?iso-8859-1?Q?Ren=E9_Dupr=E9?= <rene@example.fr>\r
            To: box@mail.localhost\r
            Subject: =?windows-1252?Q?Invoice_=96_=80100?=\r
            Date: 3 Jan 99 08:00 EST\r
            Content-Type: multipart/mixed;\r
            \tboundary="_004_Outlook_"\r
            \r
            This is a multi-part message in MIME format.\r
            --_004_Outlook_\r
            Content-Type: text/plain; charset="windows-1252"\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            Caf=E9 =93quoted=94 =80\r
            --_004_Outlook_\r
            Content-Type: application/pdf; name="invoice.pdf"\r
            Content-Disposition: attachment;\r
             filename*=utf-8''fa%C3%A7ture%20n%C2%B01.pdf\r
            Content-Transfer-Encoding: base64\r
            \r
            JVBERi0xLjQK\r
            JSVFT0YK\r
            --_004_Outlook_--\r

            """)
        #expect(message.from == [MailAddress(name: "René Dupré", email: "rene@example.fr")])
        #expect(message.subject == "Invoice – €100")
        #expect(message.date == 915_368_400)
        #expect(message.textBody == "Café “quoted” €")
        #expect(message.attachments.count == 1)
        let pdf = try #require(message.attachments.first)
        #expect(pdf.filename == "façture n°1.pdf")
        #expect(pdf.contentType == "application/pdf" && pdf.disposition == "attachment")
        #expect(pdf.data == Array("%PDF-1.4\n%%EOF\n".utf8))
    }

    @Test("Apple Mail-style multipart/related with an inline image, nested in multipart/alternative")
    func appleMail() throws {
        let message = try Self.parse(
            """
            From: Me <me@example.com>\r
            Subject: Photo\r
            Content-Type: multipart/alternative; boundary="Apple-Mail=_A"\r
            \r
            --Apple-Mail=_A\r
            Content-Type: text/plain; charset=us-ascii\r
            \r
            See the photo.\r
            --Apple-Mail=_A\r
            Content-Type: multipart/related; type="text/html"; boundary="Apple-Mail=_B"\r
            \r
            --Apple-Mail=_B\r
            Content-Type: text/html; charset=us-ascii\r
            \r
            <html><body>See <img src="cid:img1@local"></body></html>\r
            --Apple-Mail=_B\r
            Content-Type: image/png; name=dot.png\r
            Content-Disposition: inline; filename=dot.png\r
            Content-ID: <img1@local>\r
            Content-Transfer-Encoding: base64\r
            \r
            iVBORw0KGgo=\r
            --Apple-Mail=_B--\r
            --Apple-Mail=_A--\r

            """)
        #expect(message.textBody == "See the photo.")
        #expect(message.htmlBody == "<html><body>See <img src=\"cid:img1@local\"></body></html>")
        let image = try #require(message.attachments.first)
        #expect(image.contentID == "img1@local" && image.disposition == "inline" && image.filename == "dot.png")
        #expect(image.data == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test("broken mail degrades: unknown charset, bad base64, no closing boundary, bare LF, no body at all")
    func broken() throws {
        let message = try Self.parse(
            "Subject: =?x-unknown?Q?caf=C3=A9?=\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
                + "Content-Type: text/plain; charset=no-such-charset\n\nhello \u{00E9}\n--b\n"
                + "Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\nAA!!ECAw*\n")
        #expect(message.subject == "café")
        #expect(message.textBody == "hello é")
        #expect(message.attachments.first?.data == [0, 1, 2, 3])  // "AA!!ECAw*": the stray bytes skipped
        let headersOnly = try Self.parse("Subject: only headers")
        #expect(headersOnly.subject == "only headers" && headersOnly.textBody == "")
        let latin1Header = try MIMEParser.parse([0x53, 0x75, 0x62, 0x6A, 0x65, 0x63, 0x74, 0x3A, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A, 0x0A])
        #expect(latin1Header.subject == "café")
        let preview = try Self.parse("Content-Type: text/html\n\n<style>p{}</style><p>Hi&nbsp;&amp;\n\n  bye</p>")
        #expect(preview.preview == "Hi & bye")
    }

    @Test("a message/rfc822 part is kept whole as an attachment")
    func forwarded() throws {
        let message = try Self.parse(
            "Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: text/plain\n\nFYI\n--x\n"
                + "Content-Type: message/rfc822\n\nSubject: inner\n\ninner body\n--x--\n")
        #expect(message.textBody == "FYI")
        #expect(message.attachments.first?.contentType == "message/rfc822")
        #expect(message.attachments.first.map { String(decoding: $0.data, as: UTF8.self) } == "Subject: inner\n\ninner body")
    }

    @Test("limits: size, depth and part count throw")
    func limits() throws {
        #expect(throws: MIMEError.messageTooLarge) {
            try MIMEParser.parse(Array(repeating: UInt8(ascii: "a"), count: 11), limits: MIMELimits(maximumMessageBytes: 10))
        }
        var nested = "Content-Type: text/plain\n\ndeep"
        for level in 0..<5 {
            nested = "Content-Type: multipart/mixed; boundary=b\(level)\n\n--b\(level)\n\(nested)\n--b\(level)--\n"
        }
        #expect(throws: MIMEError.tooDeep) { try MIMEParser.parse(Array(nested.utf8), limits: MIMELimits(maximumDepth: 3)) }
        #expect(try MIMEParser.parse(Array(nested.utf8), limits: MIMELimits(maximumDepth: 5)).textBody == "deep")
        let many = "Content-Type: multipart/mixed; boundary=m\n\n" + String(repeating: "--m\n\nx\n", count: 20) + "--m--\n"
        #expect(throws: MIMEError.tooManyParts) { try MIMEParser.parse(Array(many.utf8), limits: MIMELimits(maximumParts: 10)) }
    }

    @Test("random bytes never crash the parser (a deterministic generator, 3000 inputs)")
    func random() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let pieces = Array(
            ["\r\n", "\n", "--b", "boundary=b", "Content-Type: multipart/mixed; ", "=?utf-8?B?", "?=", "=E9", "base64",
             "Content-Transfer-Encoding: ", ": ", ";", "\"", "<", ">", "(", ")", "\u{00FF}", "filename*0*=", "''%"].map { Array($0.utf8) })
        for _ in 0..<3000 {
            var input: [UInt8] = []
            for _ in 0..<Int(next(&state) % 40) {
                let roll = next(&state)
                input += roll % 3 == 0 ? [UInt8(truncatingIfNeeded: roll >> 8)] : pieces[Int(roll >> 16) % pieces.count]
            }
            _ = try? MIMEParser.parse(input)
        }
    }

    private func next(_ state: inout UInt64) -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

@Suite("MIME parser: boundaries found by fuzzing")
struct MIMEBoundaryTests {
    @Test("a boundary right after another (an empty part) neither crashes nor counts as a part")
    func emptyPart() throws {
        let one = try MIMEParser.parse(
            Array("Content-Type: multipart/mixed; boundary=b\n\n--b\n--b\nContent-Type: text/plain\n\nx\n--b--\n".utf8))
        #expect(one.textBody == "x" && one.attachments.isEmpty)
        let none = try MIMEParser.parse(Array("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n--b--\r\n".utf8))
        #expect(none.textBody == nil && none.attachments.isEmpty)
        let crash = try MIMEParser.parse(Array("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n--b\r\n".utf8))
        #expect(crash.attachments.isEmpty)
    }

    @Test("Originators reads every field of a name, where parse keeps the first; never the body's")
    func everyOriginatorField() throws {
        let raw = Array(
            ("From: Me <me@agents.localhost>\r\nReply-To: a@example.com\r\nFROM: bob@agents.localhost\r\n"
                + "reply-to: \"B\" <bob@agents.localhost>, c@example.com\r\nTo: x@example.com\r\n\r\n"
                + "Sender: body@agents.localhost\r\n").utf8)
        #expect(try MIMEParser.parse(raw).from.map(\.email) == ["me@agents.localhost"])
        let found = try Originators(message: raw)
        #expect(found.from.map(\.email) == ["me@agents.localhost", "bob@agents.localhost"])
        #expect(found.replyTo.map(\.email) == ["a@example.com", "bob@agents.localhost", "c@example.com"])
        #expect(found.sender.isEmpty)
    }
}
