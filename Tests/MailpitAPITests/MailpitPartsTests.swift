import PosternTestSupport
import Testing

@testable import MailpitAPI

/// What Mailpit lists of a message's parts, from what delivery filed by RFC 8621 4.1.4 (issue 87): Mailpit (enmime)
/// reads an unnamed second `text/plain` of a `multipart/mixed` as text and an image there without a disposition as
/// `Inline` (its "other parts"), and only a part that says `attachment` as an attachment.
@Suite("Mailpit API: text, Inline and Attachments of a multipart/mixed")
struct MailpitPartsTests {
    static let mixed = """
        From: Ann <ann@example.com>\r
        To: bo@mail.localhost\r
        Subject: Photos and a report\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="m"\r
        \r
        --m\r
        Content-Type: text/plain\r
        \r
        Two photos.\r
        --m\r
        Content-Type: image/png; name="dot.png"\r
        Content-Transfer-Encoding: base64\r
        \r
        iVBORw0KGgo=\r
        --m\r
        Content-Type: text/plain\r
        \r
        -- Ann\r
        --m\r
        Content-Type: application/pdf\r
        Content-Disposition: attachment; filename="r.pdf"\r
        Content-Transfer-Encoding: base64\r
        \r
        JVBERi0xLjQK\r
        --m--\r

        """

    static let twoTexts =
        "Subject: two texts\r\nContent-Type: multipart/mixed; boundary=t\r\n\r\n--t\r\nContent-Type: text/plain\r\n\r\n"
        + "one\r\n--t\r\nContent-Type: text/plain\r\n\r\ntwo\r\n--t--\r\n"

    @Test(
        "the texts joined, the image Inline, the PDF the one attachment; has:attachment finds only that message",
        arguments: StorageBackend.allCases)
    func parts(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend)
        let mixed = try await harness.deliver(Self.mixed, to: "bo@mail.localhost")
        let texts = try await harness.deliver(Self.twoTexts, to: "bo@mail.localhost")
        let detail = try await harness.call("GET", "/api/v1/message/\(mixed)").json()
        #expect(detail["Text"] as? String == "Two photos.\n-- Ann")
        #expect((detail["Inline"] as? [[String: Any]])?.map { $0["FileName"] as? String } == ["dot.png"])
        #expect((detail["Attachments"] as? [[String: Any]])?.map { $0["FileName"] as? String } == ["r.pdf"])
        let other = try await harness.call("GET", "/api/v1/message/\(texts)").json()
        #expect(other["Text"] as? String == "one\ntwo")
        #expect((other["Inline"] as? [Any])?.isEmpty == true && (other["Attachments"] as? [Any])?.isEmpty == true)
        let summaries = try await harness.call("GET", "/api/v1/messages").json()["messages"] as? [[String: Any]] ?? []
        let counts = summaries.reduce(into: [String: Int]()) { counts, summary in
            counts[summary["ID"] as? String ?? ""] = summary["Attachments"] as? Int
        }
        #expect(counts == [mixed: 1, texts: 0])
        for (query, found) in [("has:attachment", [mixed]), ("-has:attachment", [texts]), ("has:inline", [mixed])] {
            let answer = try await harness.call("GET", "/api/v1/search?query=\(query)")
            #expect(try MailpitHarness.ids(answer) == found, "\(query)")
        }
    }
}
