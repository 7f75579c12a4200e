import IMAP
import Testing

@testable import IMAPServer

/// FETCH's view of one stored message: sections and partials cut from the bytes as stored, the envelope from the
/// header, the structure from MIME's part tree.
@Suite("IMAP server: a message as FETCH shows it")
struct IMAPMessageRendererTests {
    static let message = Array(
        """
        From: Ann <ann@example.com>\r
        To: team: bob@example.org, cy@example.org;\r
        Subject: =?UTF-8?Q?caf=C3=A9?=\r
        Message-ID: <m1@example.com>\r
        Content-Type: multipart/mixed; boundary="b"\r
        \r
        preamble\r
        --b\r
        Content-Type: text/plain; charset=utf-8\r
        \r
        hello\r
        --b\r
        Content-Type: application/pdf\r
        Content-Transfer-Encoding: base64\r
        Content-Disposition: attachment; filename="a.pdf"\r
        \r
        JVBERg==\r
        --b--\r

        """.utf8)

    @Test("BODY[] whole, HEADER, TEXT, part 1, part 2's MIME header, HEADER.FIELDS and a partial")
    func sections() {
        let renderer = IMAPMessageRenderer(raw: Self.message)
        func body(_ section: IMAPSection, _ partial: IMAPPartial? = nil) -> String? {
            guard case .body(_, _, let bytes)? = renderer.item(.body(section, partial: partial, peek: true)) else {
                return nil
            }
            return bytes.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(body(IMAPSection()) == String(decoding: Self.message, as: UTF8.self))
        #expect(body(IMAPSection(text: .header))?.hasPrefix("From: Ann") == true)
        #expect(body(IMAPSection(text: .header))?.hasSuffix("boundary=\"b\"\r\n\r\n") == true)
        #expect(body(IMAPSection(text: .text))?.hasPrefix("preamble\r\n--b") == true)
        #expect(body(IMAPSection(part: [1])) == "hello")
        #expect(body(IMAPSection(part: [2], text: .mime))?.hasPrefix("Content-Type: application/pdf\r\n") == true)
        #expect(body(IMAPSection(part: [3])) == nil, "no such part: NIL")
        #expect(body(IMAPSection(text: .headerFields(["SUBJECT", "TO"])))
            == "To: team: bob@example.org, cy@example.org;\r\nSubject: =?UTF-8?Q?caf=C3=A9?=\r\n\r\n")
        #expect(body(IMAPSection(), IMAPPartial(start: 6, length: 3)) == "Ann")
    }

    @Test("a message whose body is message/rfc822: part 1 is the message inside, 1.HEADER and 1.1 are its own")
    func encapsulated() {
        let raw = Array(
            "Subject: outer\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\n\r\ninner body\r\n".utf8)
        let renderer = IMAPMessageRenderer(raw: raw)
        func body(_ section: IMAPSection) -> String? {
            guard case .body(_, _, let bytes)? = renderer.item(.body(section, partial: nil, peek: true)) else {
                return nil
            }
            return bytes.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(body(IMAPSection(part: [1])) == "Subject: inner\r\n\r\ninner body\r\n")
        #expect(body(IMAPSection(part: [1], text: .header)) == "Subject: inner\r\n\r\n")
        #expect(body(IMAPSection(part: [1, 1])) == "inner body\r\n")
        #expect(body(IMAPSection(part: [2])) == nil)
    }

    @Test("a multipart/digest's parts without Content-Type are message/rfc822 (RFC 2046 5.1.5): 1.HEADER, 1.TEXT, 2.MIME")
    func digest() {
        let raw = Array(
            ("Content-Type: multipart/digest; boundary=\"foo\"\r\n\r\n--foo\r\n\r\nSubject: m1\r\n\r\nm1 body\r\n"
                + "--foo\r\nX-Mime: m2\r\n\r\nSubject: m2\r\n\r\nm2 body\r\n--foo--\r\n").utf8)
        let renderer = IMAPMessageRenderer(raw: raw)
        func body(_ section: IMAPSection) -> String? {
            guard case .body(_, _, let bytes)? = renderer.item(.body(section, partial: nil, peek: true)) else {
                return nil
            }
            return bytes.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(body(IMAPSection(part: [1], text: .header)) == "Subject: m1\r\n\r\n")
        #expect(body(IMAPSection(part: [1], text: .text)) == "m1 body")  // the CRLF before a boundary is the boundary's
        #expect(body(IMAPSection(part: [2], text: .mime)) == "X-Mime: m2\r\n\r\n")
        #expect(body(IMAPSection(part: [2], text: .header)) == "Subject: m2\r\n\r\n")
    }

    @Test("ENVELOPE: fields as written, a group spelled out, Sender and Reply-To from From")
    func envelope() throws {
        guard case .envelope(let envelope)? = IMAPMessageRenderer(raw: Self.message).item(.envelope) else {
            Issue.record("no envelope")
            return
        }
        #expect(envelope.subject == Array("=?UTF-8?Q?caf=C3=A9?=".utf8))
        #expect(envelope.from == [IMAPAddress(name: "Ann", mailbox: "ann", host: "example.com")])
        #expect(envelope.sender == envelope.from)
        #expect(envelope.replyTo == envelope.from)
        #expect(envelope.to.count == 4, "group start, two members, group end")
        #expect(envelope.to.first == IMAPAddress(mailbox: Array("team".utf8), host: nil))
        #expect(envelope.messageID == Array("<m1@example.com>".utf8))
    }

    @Test("ENVELOPE: a display name written as a comment, a source route, an empty Sender taken from From")
    func envelopeObsoleteForms() throws {
        let raw = Array("From: user@domain (Real Name)\r\nSender: \r\nTo: <@a,@b:to@host>\r\n\r\nbody\r\n".utf8)
        guard case .envelope(let envelope)? = IMAPMessageRenderer(raw: raw).item(.envelope) else {
            Issue.record("no envelope")
            return
        }
        #expect(envelope.from == [IMAPAddress(name: "Real Name", mailbox: "user", host: "domain")])
        #expect(envelope.sender == envelope.from, "an empty Sender: is no sender")
        #expect(envelope.to == [IMAPAddress(route: Array("@a,@b".utf8), mailbox: Array("to".utf8), host: Array("host".utf8))])
    }

    @Test("SEARCH FROM/TO read the addresses: comments inside one do not hide it, a comment name and a group match")
    func searchAddressText() {
        func text(_ value: String) -> String {
            String(decoding: IMAPSearch.addressText(Array(value.utf8)), as: UTF8.self)
        }
        #expect(text("<user-from (comment)@ (comment) domain.org>") == "user-from@domain.org")
        #expect(text("user-to@domain.org (RealTo)") == "RealTo <user-to@domain.org>")
        #expect(text("groupname: groupuser1@domain.org, groupuser2@domain.org;, b@c") ==
            "groupname: groupuser1@domain.org, groupuser2@domain.org;, b@c")
        #expect(text("not an address <") == "not an address <", "a field that does not parse is matched as written")
    }

    @Test("BODYSTRUCTURE: a multipart of a text part and an attachment with its disposition")
    func structure() throws {
        guard case .bodyStructure(.multipart(let parts, let subtype, _), _)? =
            IMAPMessageRenderer(raw: Self.message).item(.bodyStructure(extensible: true))
        else {
            Issue.record("not a multipart")
            return
        }
        #expect(subtype == "MIXED")
        #expect(parts.count == 2)
        guard case .part(let text) = parts[0], case .part(let pdf) = parts[1] else {
            Issue.record("parts")
            return
        }
        #expect(text.type == "TEXT" && text.subtype == "PLAIN" && text.kind == .text(lines: 1))
        #expect(text.parameters.map(\.0) == ["charset"])
        #expect(pdf.encoding == "BASE64" && pdf.size == 8)
        #expect(pdf.extension?.disposition == IMAPBodyDisposition("ATTACHMENT", parameters: [("filename", "a.pdf")]))
    }

    @Test("a renderer made for attributes that need no parts answers them as one that read every part")
    func madeForAttributes() {
        let shapes: [[UInt8]] = [
            Self.message,
            Array("Subject: outer\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\n\r\ninner body\r\n".utf8),
            Array("From: a@b.example\nSubject: bare LF\n\nbody\n".utf8),
            Array("Subject: no body, no blank line\r\n".utf8),
            Array(String(repeating: "X-Many: 1\r\n", count: 1001).utf8) + Array("\r\nbody".utf8),  // past the limit
        ]
        let attributes: [IMAPFetchAttribute] = [
            .envelope, .rfc822, .rfc822Header, .rfc822Text,
            .body(IMAPSection(), partial: nil, peek: true),
            .body(IMAPSection(), partial: IMAPPartial(start: 3, length: 10), peek: true),
            .body(IMAPSection(text: .header), partial: nil, peek: true),
            .body(IMAPSection(text: .text), partial: nil, peek: false),
            .body(IMAPSection(text: .mime), partial: nil, peek: true),
            .body(IMAPSection(text: .headerFields(["SUBJECT", "FROM"])), partial: nil, peek: true),
            .body(IMAPSection(text: .headerFieldsNot(["SUBJECT"])), partial: IMAPPartial(start: 0, length: 5), peek: true),
        ]
        #expect(!IMAPMessageRenderer.needsParts(attributes))
        for raw in shapes {
            let everything = IMAPMessageRenderer(raw: raw)
            let made = IMAPMessageRenderer(raw: raw, for: attributes)
            #expect(made.header == everything.header && made.body == everything.body)
            for attribute in attributes {
                #expect(made.item(attribute) == everything.item(attribute), "\(attribute) of \(raw.prefix(20))")
            }
        }
    }

    @Test("attributes that look inside the message read its parts, and answer the same either way")
    func partsRead() {
        let inside: [IMAPFetchAttribute] = [
            .bodyStructure(extensible: true), .bodyStructure(extensible: false),
            .body(IMAPSection(part: [1]), partial: nil, peek: true),
            .body(IMAPSection(part: [2], text: .mime), partial: nil, peek: true),
            .binary(part: [2], partial: nil, peek: true), .binarySize(part: [1]),
        ]
        for attribute in inside {
            #expect(IMAPMessageRenderer.needsParts([.envelope, attribute]), "\(attribute)")
            let made = IMAPMessageRenderer(raw: Self.message, for: [attribute])
            #expect(made.item(attribute) == IMAPMessageRenderer(raw: Self.message).item(attribute), "\(attribute)")
        }
        // One made for the top alone still answers a part when asked (it reads the parts then).
        let topOnly = IMAPMessageRenderer(raw: Self.message, for: [.envelope])
        #expect(topOnly.item(inside[2]) == IMAPMessageRenderer(raw: Self.message).item(inside[2]))
    }

    @Test("a header block's values: every field of a name in order, case-insensitive, unfolded and trimmed")
    func headerValues() {
        let block = IMAPHeaderBlock(
            Array(
                ("Subject:  a folded\r\n\tvalue \t\r\nX-Empty:\r\nX-Blank: \t \r\nReceived : one\r\nRECEIVED:two\r\n"
                    + "\r\nBody-Line: not a field\r\n").utf8)[...])
        #expect(block.value("subject") == Array("a folded\tvalue".utf8))
        #expect(block.value("X-Empty") == [] && block.value("x-blank") == [])
        #expect(block.values("Received").map { String(decoding: $0, as: UTF8.self) } == ["one", "two"])
        #expect(block.value("Body-Line") == nil, "the block ends at its blank line")
        #expect(block.fields.map(\.name) == ["Subject", "X-Empty", "X-Blank", "Received", "RECEIVED"])
    }
}
