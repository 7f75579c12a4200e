import Testing

@testable import ServerKit

@Suite("HTMLPage.document: the one page shell")
struct HTMLPageDocumentTests {
    @Test("head, header, main and footer in order; the title escaped; the page's CSS after the shared sheet")
    func frame() {
        let page = HTMLPage.document(
            title: "A <b> & 'c'", css: ".mine{color:red}", header: "<h1>H</h1>", main: "<p id=\"m\">M</p>",
            footer: "F")
        #expect(page.text.hasPrefix("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"))
        #expect(page.text.contains("<meta name=\"referrer\" content=\"no-referrer\">\n"))
        #expect(page.text.contains("<title>A &lt;b&gt; &amp; &#39;c&#39; · Postern</title>\n"))
        #expect(page.text.contains("<style>" + HTMLPage.css + ".mine{color:red}</style>\n</head>\n"))
        #expect(
            page.text.hasSuffix(
                "<body>\n<header><h1>H</h1></header>\n<main>\n<p id=\"m\">M</p>\n</main>\n<footer>F</footer>\n"
                    + "</body>\n</html>\n"))
    }

    @Test("the footer says Postern unless given")
    func defaultFooter() {
        #expect(HTMLPage.document(title: "T", header: "", main: "").text.contains("<footer>Postern</footer>"))
    }
}
