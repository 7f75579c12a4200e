import MIME
import Testing

@testable import MailExtraction

/// Hostile and broken input never crashes the extraction, and its limits bound what it reads (issue 85).
@Suite("Extraction: hostile input")
struct RobustnessTests {
    @Test("a quoted-printable soft break inside a code is joined before the code is read")
    func softBreak() {
        let raw = """
            From: Acme <no-reply@acme.example>\r
            To: agent@postern.example\r
            Subject: Your Acme code\r
            Content-Type: text/plain; charset=utf-8\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            Your verification code is 48=\r
            2913. It expires in 10 minutes.=20\r
            """
        #expect(MessageExtraction.extract(raw: Array(raw.utf8)).codes.map(\.value) == ["482913"])
    }

    @Test("every prefix of a message, and bytes of every value, never crash")
    func truncatedAndGarbage() {
        let raw = Array(
            """
            From: a@b.example\r\nSubject: =?utf-8?B?WW91ciBjb2RlOiA0ODI5MTM=?=\r
            Content-Type: multipart/alternative; boundary=b\r
            \r\n--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r
            <p style=3D"font-size:30px">Your code <b>48=\r
            2913</b></p><a href=3D"https://x.example/v/abc123def456">Verify</a>\r
            --b--\r\n
            """.utf8)
        for length in 0...raw.count {
            _ = MessageExtraction.extract(raw: Array(raw.prefix(length)))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0...600, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            _ = MessageExtraction.extract(raw: bytes)
            _ = MessageExtraction.extract(
                from: ExtractionFixtures.message(
                    subject: String(decoding: bytes, as: UTF8.self),
                    text: String(decoding: bytes, as: UTF8.self), html: String(decoding: bytes, as: UTF8.self)))
        }
        #expect(MessageExtraction.extract(raw: Array(raw.prefix(raw.count))).codes.map(\.value) == ["482913"])
    }

    @Test("limits: the HTML read, the links kept and the codes returned are bounded")
    func limits() {
        let limits = ExtractionLimits(maximumHTMLBytes: 4096, maximumCodes: 2, maximumLinks: 50)
        let links = (0..<100_000).map { #"<a href="https://x.example/\#($0)">l</a>"# }.joined()
        let extraction = MessageExtraction.extract(
            from: ExtractionFixtures.message(html: links + "Your code is 482913"), limits: limits)
        #expect(extraction.links.count == 50)
        #expect(extraction.codes.isEmpty)  // past the HTML read
        let many = (0..<5).map { "Code \(100_000 + $0)" }.joined(separator: "\n")
        #expect(
            MessageExtraction.extract(from: ExtractionFixtures.message(text: many), limits: limits).codes.count == 2)
    }

    @Test("a 25 MB HTML part and a 25 MB text part are read only up to their limits")
    func hugeParts() {
        let block =
            #"<p style="font-size:20px">Your code is 482913 "#
            + #"<a href="https://x.example/v/abc123def456ghi">Verify</a></p>"#
        let html = String(repeating: block, count: 25 * 1024 * 1024 / block.utf8.count)
        let text = String(repeating: "Order 12345678 code 482913 2024-05-01\n", count: 25 * 1024 * 1024 / 38)
        let start = ContinuousClock.now
        let extraction = MessageExtraction.extract(
            from: ExtractionFixtures.message(subject: text, text: text, html: html))
        let elapsed = ContinuousClock.now - start
        print("25 MB text and 25 MB HTML parts: \(elapsed)")
        #expect(extraction.codes.map(\.value) == ["482913"])
        #expect(extraction.links.count == 1)
    }

    @Test("pathological HTML is read in one pass: unclosed tags, quotes and references")
    func pathological() {
        let html =
            String(repeating: "<a <b '", count: 20_000) + String(repeating: "&#", count: 20_000)
            + String(repeating: "<p>", count: 50_000)
        _ = MessageExtraction.extract(from: ExtractionFixtures.message(html: html))
    }
}
