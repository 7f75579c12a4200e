import Testing

@testable import MailExtraction

/// Known answers for what of an HTML part is visible (issue 85): only that text is read for codes.
@Suite("Extraction: the visible text of HTML")
struct VisibleTextTests {
    typealias F = ExtractionFixtures

    private func visible(_ html: String) -> String {
        let text = HTMLVisibleText(html: html, limits: .default).text
        return String(String.UnicodeScalarView(text.scalars))
    }

    @Test("no head, style, script, title, comments or attributes; entities decoded; blocks make lines")
    func visibleOnly() {
        let html = """
            <html><head><title>Code 111111</title><style>.a{color:#202123}</style></head>
            <body><!-- code 222222 --><script>var code = "333333";</script>
            <p class="x" data-code="444444">Your&nbsp;code&#58; <b>555&#x35;55</b></p><div>Caf&eacute; &amp; more</div>
            </body></html>
            """
        #expect(visible(html) == "Your\u{A0}code: 555555\nCaf&eacute; & more\n")
    }

    @Test("elements hidden by display:none, visibility:hidden, opacity:0, font-size:0 or hidden are not read")
    func hidden() {
        let html = """
            <div style="display:none;max-height:0">Your code is 111111</div>
            <span style="visibility: hidden">Your code is 222222</span><p hidden>Your code is 333333</p>
            <span style="opacity:0">Your code is 444444</span><span style="font-size:0px">Your code is 555555</span>
            <p>Your code is <span>666666</span></p>
            """
        #expect(F.codes(html: html) == ["666666"])
    }

    @Test("a head left open ends at body; an unknown end tag is ignored; a lone < is text")
    func sloppyHTML() {
        #expect(visible("<head><title>x</title><body>a < b</i> c") == "a < b c")
    }

    @Test("a script or a comment that never ends ends the reading")
    func unterminated() {
        #expect(visible("text <script> never closed 123456") == "text")
        #expect(visible("text <!-- never closed 123456") == "text")
    }

    @Test("emphasis: bold, headings, large or letter-spaced style")
    func emphasis() {
        let text = HTMLVisibleText(
            html: #"a<b>b</b><span style="font-size: 28px">c</span><span style="letter-spacing:4px">d</span>"#
                + #"<span style="font-size:12px">e</span><h1>f</h1>"#, limits: .default
        ).text
        #expect(text.emphasized == [false, true, true, true, false, false, true, false])
    }

    @Test("the font shorthand emphasizes when it is bold or large")
    func fontShorthand() {
        let text = HTMLVisibleText(
            html:
                #"<td style="font:bold 16px Arial">a</td><td style="font: 24px/1.2 Arial">b</td><td style="font:12px x">c</td>"#,
            limits: .default
        ).text
        #expect(String(String.UnicodeScalarView(text.scalars)) == "a\nb\nc\n")
        #expect(text.emphasized == [true, false, true, false, false, false])
    }

    @Test("past the depth limit elements are read as their parent's text, nothing grows")
    func deepNesting() {
        let html =
            String(repeating: "<div>", count: 10_000) + "Your code is 482913"
            + String(repeating: "</div>", count: 10_000)
        #expect(F.codes(html: html) == ["482913"])
    }
}
