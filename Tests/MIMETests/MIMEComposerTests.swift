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
        let raw = MIMEComposer.compose(Self.message())
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
        let raw = MIMEComposer.compose(message)
        let parsed = try MIMEParser.parse(raw)
        #expect(!parsed.headers.contains { $0.name.lowercased() == "x-injected" || $0.name.lowercased() == "bcc" })
        #expect(parsed.subject?.contains("X-Injected: yes") == true)
    }

    @Test("plain ASCII text goes 7bit; anything else base64 with lines of 76")
    func encodings() {
        var message = OutgoingMessage(messageID: "x@y", date: 0)
        message.textBody = "just ascii"
        #expect(String(decoding: MIMEComposer.compose(message), as: UTF8.self).contains("Content-Transfer-Encoding: 7bit"))
        message.textBody = String(repeating: "é", count: 200)
        let text = String(decoding: MIMEComposer.compose(message), as: UTF8.self)
        #expect(text.contains("Content-Transfer-Encoding: base64"))
        #expect(text.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 998 })
    }
}
