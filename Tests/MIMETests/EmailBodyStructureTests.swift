import Testing

@testable import MIME

/// RFC 8621 §4.1.4: the body structure of a message and the parts its algorithm picks for textBody, htmlBody and
/// attachments, on the RFC's own example structure (the one above its pseudo-code) written as a message.
@Suite("JMAP body structure (RFC 8621 4.1.4)")
struct EmailBodyStructureTests {
    static func leaf(_ header: String, _ body: String) -> String { header + "\r\n\r\n" + body + "\r\n" }

    static func multipart(_ type: String, _ boundary: String, _ parts: [String]) -> String {
        "Content-Type: multipart/\(type); boundary=\(boundary)\r\n\r\n"
            + parts.map { "--\(boundary)\r\n" + $0 }.joined() + "--\(boundary)--\r\n"
    }

    /// RFC 8621 4.1.4's example: A, then a mixed of (an alternative of (a mixed of B C D) and (a related of E F)),
    /// G, H, J; then K.
    static let example = Array(
        ("Subject: Example\r\nMIME-Version: 1.0\r\n"
            + multipart("mixed", "T", [
                leaf("Content-Type: text/plain", "A"),
                multipart("mixed", "M1", [
                    multipart("alternative", "AL", [
                        multipart("mixed", "M2", [
                            leaf("Content-Type: text/plain; charset=utf-8", "B"),
                            leaf("Content-Type: image/jpeg\r\nContent-Transfer-Encoding: base64", "/9j/"),
                            leaf("Content-Type: text/plain; charset=iso-8859-1\r\nContent-Disposition: inline", "D\u{E9}"),
                        ]),
                        multipart("related", "R", [
                            leaf("Content-Type: text/html", "<p>E</p>"),
                            leaf("Content-Type: image/jpeg; name=f.jpg\r\nContent-ID: <f@x>", "F"),
                        ]),
                    ]),
                    leaf("Content-Type: image/jpeg\r\nContent-Disposition: attachment; filename=\"g.jpg\"", "G"),
                    leaf("Content-Type: application/x-excel", "H"),
                    leaf("Content-Type: message/rfc822", "Subject: J\r\n\r\nJ"),
                ]),
                leaf("Content-Type: text/plain\r\nContent-Language: en, de\r\nContent-Location: k", "K"),
            ])).utf8)

    /// The part ids are the leaves' numbers in order: A 1, B 2, C 3, D 4, E 5, F 6, G 7, H 8, J 9, K 10.
    @Test("textBody A B C D K, htmlBody A E K, attachments C F G H J: the RFC's own answer")
    func rfcExample() {
        let structure = EmailBodyStructure(Self.example[...])
        #expect(structure.textBody.map(\.partID) == ["1", "2", "3", "4", "10"])
        #expect(structure.htmlBody.map(\.partID) == ["1", "5", "10"])
        #expect(structure.attachments.map(\.partID) == ["3", "6", "7", "8", "9"])
        #expect(structure.leaves.map(\.partID) == (1...10).map { String($0) })
        #expect(structure.root.partID == nil && structure.root.type == "multipart/mixed" && structure.root.size == 0)
    }

    @Test("a part's properties: charset us-ascii by default, cid without brackets, language, location, decoded size")
    func properties() throws {
        let structure = EmailBodyStructure(Self.example[...])
        let a = try #require(structure.part("1"))
        #expect(a.charset == "us-ascii" && a.type == "text/plain" && a.size == 1 && a.name == nil)
        let c = try #require(structure.part("3"))
        #expect(c.charset == nil && c.decoded == [0xFF, 0xD8, 0xFF] && c.size == 3)
        let d = try #require(structure.part("4"))
        // Its UTF-8 bytes read as the ISO-8859-1 it declares.
        #expect(d.text(maxBytes: 0).value == "D\u{C3}\u{A9}" && d.disposition == "inline")
        let f = try #require(structure.part("6"))
        #expect(f.cid == "f@x" && f.name == "f.jpg")
        let g = try #require(structure.part("7"))
        #expect(g.disposition == "attachment" && g.name == "g.jpg")
        let j = try #require(structure.part("9"))
        #expect(j.type == "message/rfc822" && j.decoded == Array("Subject: J\r\n\r\nJ".utf8))
        let k = try #require(structure.part("10"))
        #expect(k.language == ["en", "de"] && k.location == "k")
        #expect(structure.part("11") == nil)
        #expect(structure.root.headers.map(\.name) == ["Subject", "MIME-Version", "Content-Type"])
    }

    @Test("an alternative with only HTML gives that HTML as the text too; a single text part is both")
    func alternativeFallback() {
        let htmlOnly = Array(
            Self.multipart("alternative", "B", [Self.leaf("Content-Type: text/html", "<b>x</b>")]).utf8)
        let structure = EmailBodyStructure(htmlOnly[...])
        #expect(structure.textBody.map(\.partID) == ["1"] && structure.htmlBody.map(\.partID) == ["1"])
        let plain = Array("Subject: x\r\n\r\nhello\r\n".utf8)
        let single = EmailBodyStructure(plain[...])
        #expect(single.textBody.map(\.partID) == ["1"] && single.htmlBody.map(\.partID) == ["1"])
        #expect(single.attachments.isEmpty && single.root.text(maxBytes: 0).value == "hello\n")
    }

    @Test("a value is cut at a character's start, never inside one; isTruncated says so")
    func truncation() {
        let raw = Array("Content-Type: text/plain; charset=utf-8\r\n\r\n1234\u{2603}".utf8)
        let part = EmailBodyStructure(raw[...]).root
        #expect(part.text(maxBytes: 3).value == "123" && part.text(maxBytes: 3).isTruncated)
        #expect(part.text(maxBytes: 5).value == "1234" && part.text(maxBytes: 6).value == "1234")
        #expect(part.text(maxBytes: 7).value == "1234\u{2603}" && !part.text(maxBytes: 7).isTruncated)
        #expect(!part.text(maxBytes: 0).isEncodingProblem)
        let broken = Array("Content-Type: text/plain; charset=utf-8\r\n\r\n".utf8) + [0x41, 0xFF]
        #expect(EmailBodyStructure(broken[...]).root.text(maxBytes: 0).isEncodingProblem)
    }

    @Test("raw header fields keep their folding and leading space, the same fed whole or byte by byte")
    func rawFields() throws {
        let block = Array("X-Fold:  aaa\r\n bbb\r\nSubject: =?UTF-8?B?4piD?=\nTo: a@b\r\n\r\nbody".utf8)
        let fields = RawHeaderFields.read(block[...])
        #expect(fields == [
            MailHeader(name: "X-Fold", value: "  aaa\r\n bbb"), MailHeader(name: "Subject", value: " =?UTF-8?B?4piD?="),
            MailHeader(name: "To", value: " a@b"),
        ])
        var parser = MIMEHeaderParser(limits: .default, keepsLineBreaks: true)
        for byte in block where !parser.isComplete { try parser.feed([byte]) }
        #expect(parser.fields.map { String(decoding: $0.value, as: UTF8.self) } == fields.map(\.value))
    }
}
