import Testing

@testable import MIME

/// What JMAP writes: composed messages read back by the parser field for field, and header text that cannot
/// break out of its header.
@Suite("MIME composer")
struct MIMEComposerTests {
    static func message() -> OutgoingMessage {
        var message = OutgoingMessage(messageID: "abc-123@agents.localhost", date: 1_750_000_000)
        message.from = [MailAddress(name: "Zoë \"Z\" Agent", email: "zoe@agents.localhost")]
        message.to = [MailAddress(name: "Bob", email: "bob@agents.localhost")]
        message.cc = [MailAddress(email: "carol@mail.localhost")]
        message.bcc = [MailAddress(email: "hidden@agents.localhost")]
        message.subject = "Grüße – a long subject that needs more than one encoded word to carry its UTF-8 bytes"
        message.inReplyTo = ["parent@example.com"]
        message.references = ["root@example.com", "parent@example.com"]
        message.textBody = "Hello ✓\nsecond line"
        message.htmlBody = "<p>Hello ✓</p>"
        message.attachments = [
            MailAttachment(
                filename: "report.pdf", contentType: "application/pdf", contentID: nil, disposition: "attachment",
                data: Array("%PDF-1.4\n".utf8)),
            MailAttachment(
                filename: "naïve résumé.txt", contentType: "text/plain", contentID: "cid-1", disposition: "inline",
                data: [0, 1, 2, 255]),
        ]
        return message
    }

    @Test("a message with text, HTML, two attachments and non-ASCII names reads back field for field")
    func roundTrip() throws {
        let raw = try MIMEComposer.compose(Self.message())
        let parsed = try MIMEParser.parse(raw)
        #expect(parsed.from == [MailAddress(name: "Zoë \"Z\" Agent", email: "zoe@agents.localhost")])
        #expect(parsed.to.map(\.email) == ["bob@agents.localhost"] && parsed.cc.map(\.email) == ["carol@mail.localhost"])
        #expect(parsed.bcc.isEmpty)
        #expect(parsed.subject == Self.message().subject)
        #expect(parsed.messageID == "abc-123@agents.localhost")
        #expect(parsed.inReplyTo == ["parent@example.com"])
        #expect(parsed.references == ["root@example.com", "parent@example.com"])
        #expect(parsed.date == 1_750_000_000)
        #expect(parsed.textBody == "Hello ✓\r\nsecond line" || parsed.textBody == "Hello ✓\nsecond line")
        #expect(parsed.htmlBody == "<p>Hello ✓</p>")
        #expect(parsed.attachments.map(\.filename) == ["report.pdf", "naïve résumé.txt"])
        #expect(parsed.attachments.map(\.data) == [Array("%PDF-1.4\n".utf8), [0, 1, 2, 255]])
        #expect(parsed.attachments.last?.contentID == "cid-1")
        #expect(!String(decoding: raw, as: UTF8.self).contains("hidden@agents.localhost"))
    }

    @Test("line breaks in a subject or a name stay inside their header")
    func noHeaderInjection() throws {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        message.from = [MailAddress(name: "Eve\r\nBcc: victim@example.com", email: "eve@agents.localhost")]
        message.subject = "hi\r\nX-Injected: yes"
        message.textBody = "body"
        let raw = try MIMEComposer.compose(message)
        let parsed = try MIMEParser.parse(raw)
        #expect(!parsed.headers.contains { $0.name.lowercased() == "x-injected" || $0.name.lowercased() == "bcc" })
        #expect(parsed.subject?.contains("X-Injected: yes") == true)
    }

    @Test("plain ASCII text goes 7bit; anything else base64 with lines of 76")
    func encodings() throws {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        message.textBody = "just ascii"
        let ascii = String(decoding: try MIMEComposer.compose(message), as: UTF8.self)
        #expect(ascii.contains("Content-Transfer-Encoding: 7bit"))
        message.textBody = String(repeating: "é", count: 200)
        let text = String(decoding: try MIMEComposer.compose(message), as: UTF8.self)
        #expect(text.contains("Content-Transfer-Encoding: base64"))
        #expect(text.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 998 })
    }

    /// The raw header lines of `raw` (folded lines kept as they are written).
    static func headerLines(_ raw: [UInt8]) -> [String] {
        let text = String(decoding: raw, as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        return head.components(separatedBy: "\r\n")
    }

    @Test(
        "a display name with a line break cannot add an address: it is quoted or encoded, never bare",
        arguments: [
            "Friend\r\n, victim@agents.localhost, x", "Friend\r, victim@agents.localhost",
            "a\nBcc: victim@agents.localhost", "Tab\tand, comma <victim@agents.localhost>",
            "Nul\u{0}, victim@agents.localhost", "Zoë, victim@agents.localhost",
        ])
    func displayNameCannotAddAnAddress(name: String) throws {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        message.from = [MailAddress(name: name, email: "eve@agents.localhost")]
        message.to = [MailAddress(name: name, email: "friend@example.com")]
        message.cc = [MailAddress(name: name, email: "other@example.com")]
        message.replyTo = [MailAddress(name: name, email: "reply@example.com")]
        message.sender = MailAddress(name: name, email: "eve@agents.localhost")
        message.textBody = "body"
        let raw = try MIMEComposer.compose(message)
        let parsed = try MIMEParser.parse(raw)
        #expect(parsed.from.map(\.email) == ["eve@agents.localhost"], "\(Self.headerLines(raw))")
        #expect(parsed.to.map(\.email) == ["friend@example.com"], "\(Self.headerLines(raw))")
        #expect(parsed.cc.map(\.email) == ["other@example.com"])
        #expect(parsed.replyTo.map(\.email) == ["reply@example.com"])
        #expect(parsed.sender?.email == "eve@agents.localhost")
        #expect(!parsed.headers.contains { $0.name.lowercased() == "bcc" })
        // Line breaks and other controls become spaces; the rest of the name reads back.
        let flat = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { $0.properties.generalCategory == .control && $0 != "\t" ? " " : $0 }))
        #expect(parsed.to.first?.name == flat.trimmingCharacters(in: .whitespaces))
        for line in Self.headerLines(raw) where line.hasPrefix("To: ") || line.hasPrefix("From: ") {
            let value = line.dropFirst(line.hasPrefix("To: ") ? 4 : 6)
            #expect(value.hasPrefix("\"") || value.hasPrefix("=?UTF-8?B?"), "\(line)")
        }
    }

    @Test("a file name with a quote and a line break stays one parameter of its header")
    func fileNameCannotAddAParameter() throws {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        message.textBody = "body"
        message.attachments = [
            MailAttachment(
                filename: "x\"; charset=evil\r\nX-Injected: yes", contentType: "text/plain", contentID: nil,
                disposition: "attachment", data: [1, 2, 3])
        ]
        let raw = try MIMEComposer.compose(message)
        let parsed = try MIMEParser.parse(raw)
        #expect(parsed.attachments.map(\.filename) == ["x\"; charset=evil  X-Injected: yes"])
        let text = String(decoding: raw, as: UTF8.self)
        #expect(!text.contains("charset=evil"), "\(text)")
        #expect(!text.contains("\r\nX-Injected"))
    }

    @Test("long subjects, names, file names and address lists are folded: no line passes 998 octets")
    func longFieldsAreFolded() throws {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        let subject = (0..<300).map { "word\($0)" }.joined(separator: " ")
        message.subject = subject
        message.to = (0..<60).map { MailAddress(name: "Recipient Number \($0)", email: "r\($0)@example.com") }
        message.cc = [MailAddress(name: String(repeating: "n", count: 1200), email: "long@example.com")]
        message.textBody = "body"
        message.attachments = [
            MailAttachment(
                filename: String(repeating: "é", count: 600) + ".txt", contentType: "text/plain", contentID: nil,
                disposition: "attachment", data: [1])
        ]
        let raw = try MIMEComposer.compose(message)
        let lines = String(decoding: raw, as: UTF8.self).components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 998 }, "\(lines.map(\.utf8.count).max() ?? 0)")
        let parsed = try MIMEParser.parse(raw)
        #expect(parsed.subject == subject)
        #expect(parsed.to.count == 60)
        #expect(parsed.to.last == MailAddress(name: "Recipient Number 59", email: "r59@example.com"))
        #expect(parsed.cc.first?.name == String(repeating: "n", count: 1200))
        #expect(parsed.attachments.first?.filename == String(repeating: "é", count: 600) + ".txt")
    }

    @Test("a subject that looks like an encoded word reads back as written")
    func subjectLikeAnEncodedWord() throws {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        message.subject = "=?UTF-8?B?SGVsbG8=?= is how Hello is encoded"
        let parsed = try MIMEParser.parse(try MIMEComposer.compose(message))
        #expect(parsed.subject == message.subject)
    }

    @Test("a body that holds the multipart boundary cannot end its part early")
    func bodyCannotCloseItsPart() throws {
        var message = OutgoingMessage(messageID: "abc@y", date: 0)
        message.textBody =
            "before\n--=_postern_abcy_alt\nContent-Type: text/html\n\n<b>forged</b>\n--=_postern_abcy_alt--\nafter"
        message.htmlBody = "<p>real</p>"
        let parsed = try MIMEParser.parse(try MIMEComposer.compose(message))
        #expect(parsed.textBody?.replacingOccurrences(of: "\r\n", with: "\n") == message.textBody)
        #expect(parsed.htmlBody == "<p>real</p>")
    }

    @Test(
        "an address, message id, content id or content type that would need quoting is refused, not written",
        arguments: [
            "To", "Sender", "Message-ID", "References", "Content-ID", "Content-Type", "Content-Disposition",
        ])
    func unsafeStructuredValuesAreRefused(field: String) throws {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        message.textBody = "body"
        var attachment = MailAttachment(
            filename: "a.txt", contentType: "text/plain", contentID: nil, disposition: "attachment", data: [1])
        let hostile = "x@y>\r\nBcc: victim@agents.localhost"
        switch field {
        case "To": message.to = [MailAddress(email: "victim@agents.localhost\r\nX-Injected: yes")]
        case "Sender": message.sender = MailAddress(email: "a b@example.com")
        case "Message-ID": message.messageID = hostile
        case "References": message.references = ["ok@y", hostile]
        case "Content-ID": attachment.contentID = hostile
        case "Content-Type": attachment.contentType = "text/plain\r\nX-Injected: yes"
        default: attachment.disposition = "inline; filename=evil"
        }
        message.attachments = [attachment]
        #expect(throws: MIMEComposerError.self) { try MIMEComposer.compose(message) }
        #expect(try MIMEComposer.compose(OutgoingMessage(messageID: "x@y", date: 0)).isEmpty == false)
    }
}
