import Testing

@testable import MIME

/// Known answers for the links the operator API lists: what a confirmation mail's text and HTML parts hold.
@Suite("Message links: text URLs and HTML hrefs")
struct MessageLinksTests {
    @Test("a text URL ends at white space or <>\", without the sentence's punctuation after it")
    func textURLs() {
        let text = """
            Confirm: https://app.example/confirm?token=6f1a2b3c&next=%2Fhome.
            Or (see http://example.org/a_(b)) and <HTTPS://Example.com/x>, then "http://q.example/?a=1",
            http:// alone is nothing; nor is ftp://files.example/; https://end.example/path!
            """
        #expect(
            MessageLinks.inText(text) == [
                "https://app.example/confirm?token=6f1a2b3c&next=%2Fhome", "http://example.org/a_(b)",
                "HTTPS://Example.com/x", "http://q.example/?a=1", "https://end.example/path",
            ])
    }

    @Test("HTML: each http(s) href, references decoded, quotes honoured; comments, scripts and styles passed over")
    func htmlHrefs() {
        let html = """
            <p>Hi <a class="x" href="https://app.example/confirm?token=6f1&amp;u=2">confirm</a>
            <a href='https://app.example/q?a=1&#38;b=2&#x26;c=3' title="a > b">q</a>
            <A HREF=http://bare.example/p>bare</A> <a href = " https://spaced.example/ ">s</a>
            <a href="mailto:someone@example.com">mail</a> <a href="/relative">r</a> <a href="javascript:x()">j</a>
            <!-- <a href="https://comment.example/">c</a> -->
            <script>var s = '<a href="https://script.example/">';</script><style>a { } </style>
            <img src="https://image.example/i.png"> <a href="https://app.example/confirm?token=6f1&amp;u=2">again</a>
            """
        #expect(
            MessageLinks.inHTML(html) == [
                "https://app.example/confirm?token=6f1&u=2", "https://app.example/q?a=1&b=2&c=3",
                "http://bare.example/p", "https://spaced.example/", "https://app.example/confirm?token=6f1&u=2",
            ])
    }

    @Test("find: text links first, then the HTML's, each once; either part may be absent")
    func findMergesAndDeduplicates() {
        #expect(
            MessageLinks.find(
                text: "Go to https://a.example/1 or https://b.example/2",
                html: #"<a href="https://b.example/2">b</a><a href="https://c.example/3">c</a>"#)
                == ["https://a.example/1", "https://b.example/2", "https://c.example/3"])
        #expect(MessageLinks.find(text: nil, html: #"<a href="https://c.example/3">"#) == ["https://c.example/3"])
        #expect(MessageLinks.find(text: "no links here", html: nil) == [])
        #expect(MessageLinks.find(text: nil, html: nil) == [])
    }

    @Test("at most maximumLinks links, however many the message has")
    func bounded() {
        let text = (0..<(MessageLinks.maximumLinks + 50)).map { "https://x.example/\($0)" }.joined(separator: " ")
        let links = MessageLinks.find(text: text, html: nil)
        #expect(links.count == MessageLinks.maximumLinks)
        #expect(links.last == "https://x.example/\(MessageLinks.maximumLinks - 1)")
    }

    @Test("character references: numeric and the common named ones; unknown or unterminated ones stay as written")
    func references() {
        #expect(HTMLTag.decodeReferences("a&amp;b&lt;&gt;&quot;&apos;&#65;&#x42;") == "a&b<>\"'AB")
        #expect(HTMLTag.decodeReferences("x&frac12;y&amp z&#xZZ;&#;&") == "x&frac12;y&amp z&#xZZ;&#;&")
        #expect(HTMLTag.decodeReferences("&copy;&euro;&mdash;&zwnj;") == "\u{A9}\u{20AC}\u{2014}\u{200C}")
    }

    @Test("an unclosed tag or comment ends the scan without a link or a crash")
    func unclosed() {
        #expect(MessageLinks.inHTML(#"<a href="https://x.example/"#) == ["https://x.example/"])
        #expect(MessageLinks.inHTML("<!-- <a href=\"https://x.example/\">") == [])
        #expect(MessageLinks.inHTML("<a href=") == [])
        #expect(MessageLinks.inHTML("1 < 2 and 3 > 2") == [])
    }
}
