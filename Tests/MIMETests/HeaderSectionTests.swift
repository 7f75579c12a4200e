import Testing

@testable import MIME

/// The strict header reader under a submission's sender check: a header every RFC 5322 reader splits the same way,
/// or a refusal naming the rule and the line; and the originators read from it.
@Suite("Header section")
struct HeaderSectionTests {
    @Test("Fields in order, folded values unfolded, the body left alone")
    func reads() throws {
        let message = Array("From: a@b\r\nSubject: one\r\n two\r\nTo: c@d\r\n\r\nbody\rwith a bare CR\n".utf8)
        let header = try HeaderSection(message: message)
        #expect(header.fields.map(\.name) == ["From", "Subject", "To"])
        #expect(header.values("subject") == [" one two"])
        #expect(try HeaderSection(message: Array("From: a@b".utf8)).values("From") == [" a@b"])
    }

    @Test(
        "Each rule refused with its line",
        arguments: [
            ("From: ceo@agents.localhost\rX-Hide: <own@agents.localhost>\r\n\r\n", HeaderSectionError.Reason.bareCR, 1),
            ("To: x@y\r\nFrom: own@agents.localhost\nFrom: ceo@agents.localhost\r\n\r\n", .bareLF, 2),
            ("From: own@agents\u{0}.localhost\r\n\r\n", .nul, 1),
            (" From: a@b\r\n\r\n", .startsFolded, 1),
            ("From: a@b\r\n \t \r\nFrom: c@d\r\n\r\n", .whiteSpaceLine, 2),
            ("From a@b\r\n\r\n", .noColon, 1),
            ("From : a@b\r\n\r\n", .badName, 1),
            (": a@b\r\n\r\n", .badName, 1),
            ("Subject: " + String(repeating: "x", count: 990) + "\r\n\r\n", .lineTooLong, 1),
        ])
    func refusals(_ text: String, _ reason: HeaderSectionError.Reason, _ line: Int) throws {
        let error = try #require(throws: HeaderSectionError.self) { try HeaderSection(message: Array(text.utf8)) }
        #expect(error == HeaderSectionError(reason, line: line))
    }

    @Test("A field that is not UTF-8 is refused")
    func notUTF8() throws {
        let error = try #require(throws: HeaderSectionError.self) {
            try HeaderSection(message: Array("To: x@y\r\nFrom: ".utf8) + [0xC3, 0x28] + Array(" <a@b>\r\n\r\n".utf8))
        }
        #expect(error.reason == .notUTF8)
    }

    @Test("Originators: every From, Sender and Reply-To field, groups' members included")
    func originators() throws {
        let message = Array(
            """
            From: Own <own@agents.localhost>, second@agents.localhost\r
            Sender: own@agents.localhost\r
            Reply-To: helpdesk: h@example.com, i@example.com;, own@agents.localhost\r
            From: third@agents.localhost\r
            \r
            body
            """.utf8)
        let read = try Originators(message: message)
        #expect(read.from.map(\.email) == ["own@agents.localhost", "second@agents.localhost", "third@agents.localhost"])
        #expect(read.sender.map(\.email) == ["own@agents.localhost"])
        #expect(read.replyTo.map(\.email) == ["h@example.com", "i@example.com", "own@agents.localhost"])
    }

    @Test("Originators refuse a header or a field that could be read two ways")
    func originatorRefusals() throws {
        let bareCR = try #require(throws: OriginatorError.self) {
            try Originators(message: Array("From: ceo@agents.localhost\rX-Hide: <own@agents.localhost>\r\n\r\n".utf8))
        }
        #expect(bareCR == .header(HeaderSectionError(.bareCR, line: 1)))
        let quoted = try #require(throws: OriginatorError.self) {
            try Originators(message: Array("From: <ceo@agents.localhost> \"<own@agents.localhost>\"\r\n\r\n".utf8))
        }
        guard case .field("From", let error) = quoted else {
            Issue.record("expected a From field error, got \(quoted)")
            return
        }
        #expect(error.reason == .trailingText)
        #expect(throws: OriginatorError.self) {
            try Originators(message: Array("Sender: a@b, c@d\r\n\r\n".utf8))
        }
    }
}
