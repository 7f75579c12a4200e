import Foundation
import Testing

@testable import HTMLSanitizing

/// The HTML part's sanitizer, on hostile markup: whole and fed one character at a time, the same output.
@Suite("Web inbox: the HTML part's sanitizer")
struct HTMLPartSanitizerTests {
    /// `html` fed one character at a time, after checking that it gives what the whole text gives.
    static func sanitized(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        var sanitizer = HTMLPartSanitizer()
        for scalar in html.unicodeScalars { sanitizer.feed(scalar) }
        let fed = sanitizer.finish()
        #expect(fed == HTMLPartSanitizer.sanitize(html), sourceLocation: sourceLocation)
        return fed
    }

    static let cases: [(String, String)] = [
        // Scripts and handlers.
        ("<script>alert(1)</script>ok", "ok"),
        ("<SCRIPT SRC=//evil.example/x.js></SCRIPT >after", "after"),
        ("<script>a</scriptx>b</script>c", "c"),
        ("<img src=x onerror=alert(1)>", #"<img src="x">"#),
        (#"<body ONLOAD="go()" onmouseover='x'><p>hi</p></body>"#, "<body><p>hi</p></body>"),
        ("<img/src=x/onerror=alert(1)>", #"<img src="x/onerror=alert(1)">"#),
        // base, meta, link and embedded documents.
        (#"<base href="https://evil.example/"><a href="p">p</a>"#, #"<a href="p">p</a>"#),
        (#"<META http-equiv="refresh" content="0;url=https://x.example">"#, ""),
        (#"<link rel=stylesheet href="https://x.example/s.css">"#, ""),
        (#"<iframe srcdoc="<script>x</script>" src="https://x.example"></iframe>z"#, "z"),
        (#"<object data="https://x.example/f.swf"><embed src="https://x.example/e"></object>"#, ""),
        // Remote URLs in every disguise.
        (#"<img src="https://t.example/p.gif">"#, "<img>"),
        (#"<img src="&#104;ttps://t.example/p">"#, "<img>"),
        (#"<img src="https&colon;//t.example/p">"#, "<img>"),
        (#"<img src="ht&Tab;tps://t.example/p">"#, "<img>"),
        ("<img src=\" \t//t.example/p\">", "<img>"),
        (#"<img src="\/t.example/p">"#, "<img>"),
        (#"<img src="/\t.example/p">"#, "<img>"),
        (#"<img srcset="a.png 1x, https://t.example/b.png 2x">"#, "<img>"),
        (#"<td background="http://t.example/b.png">x</td>"#, "<td>x</td>"),
        (#"<a href="https://example.com" ping="https://t.example">a link</a>"#, "<a>a link</a>"),
        (#"<a href="javascript:alert(1)">x</a><a href="JaVaScRiPt&#58;x">y</a>"#, "<a>x</a><a>y</a>"),
        (
            ##"<a href="#top">t</a><a href="mailto:ada@example.com">m</a>"##,
            ##"<a href="#top">t</a><a href="mailto:ada@example.com">m</a>"##
        ),
        (
            #"<img src="cid:logo@example.com" alt='a "quoted" name'>"#,
            #"<img src="cid:logo@example.com" alt="a &quot;quoted&quot; name">"#
        ),
        (#"<form action="https://x.example"><input formaction="https://y.example"></form>"#, "<form><input></form>"),
        // CSS.
        (#"<div style="background:url(https://t.example/b)">x</div>"#, #"<div style="background:none">x</div>"#),
        (
            #"<div style="background:url( 'cid:a' ) no-repeat">x</div>"#,
            #"<div style="background:url( 'cid:a' ) no-repeat">x</div>"#
        ),
        (#"<div style="background:u\72l(https://t.example/b)">x</div>"#, "<div>x</div>"),
        (#"<div style="background:url&lpar;https://t.example/b)">x</div>"#, "<div>x</div>"),
        (#"<div style="color:red;content:'\2022'">x</div>"#, #"<div style="color:red;content:'\2022'">x</div>"#),
        (
            #"<style>@import "https://t.example/s.css"; b{background:URL(//t.example/b.png);x:image-set("https://t.example/i" 1x)}</style>"#,
            #"<style>@x-import "https://t.example/s.css"; b{background:none;x:x-image-set("https://t.example/i" 1x)}</style>"#
        ),
        ("<style>b{}</style ><p>after</p>", "<style>b{}</style><p>after</p>"),
        // Parser differentials (mutation XSS): nothing a later parse could read as markup.
        (
            #"<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>"#,
            #"<p title="&lt;/noscript&gt;&lt;img src=x onerror=alert(1)&gt;">"#
        ),
        ("<svg><style><img src=x onerror=alert(1)></style></svg>", "<style>\\3c img src=x onerror=alert(1)></style>"),
        (#"<xmp><a title="</xmp><script>alert(1)</script>">"#, "\"&gt;"),
        ("<textarea><script>x</script></textarea>", "<textarea>&lt;script>x&lt;/script></textarea>"),
        ("<title></title><img src=x onerror=alert(1)></title>", #"<title></title><img src="x"></title>"#),
        // Comments, declarations, text.
        ("<!--<script>alert(1)</script>-->x", "x"),
        ("<!-- a --!><script>alert(1)</script>y", "y"),
        ("<!-->x<!--->y<!---->z", "xyz"),
        ("<!DOCTYPE html><?xml x><![CDATA[<script>]]>k", "]]&gt;k"),
        ("1 < 2 > 0 & </ > <3", "1 &lt; 2 &gt; 0 &  &lt;3"),
        ("<p>Zoë 日本 &amp; &copy;</p>", "<p>Zoë 日本 &amp; &copy;</p>"),
        ("a\u{0}b", "a\u{FFFD}b"),
        ("<p a\"b=1 c=2>x", #"<p c="2">x"#),
        // Cut off at the end: the tag is dropped, as a browser drops it; raw text is closed.
        ("ok<img src=x onerror=alert(1)", "ok"),
        ("<style>b{color:red}", "<style>b{color:red}</style>"),
        ("<script>never closed", ""),
    ]

    @Test("hostile markup: what is left", arguments: cases)
    func hostile(input: String, expected: String) {
        #expect(Self.sanitized(input) == expected)
    }

    @Test("whatever the input, every < opens a tag the sanitizer wrote, with no handler or remote URL; it is stable")
    func invariants() throws {
        let tag = try Regex(#"<(?:([a-z][a-z0-9:._-]*)((?: [a-z_:][a-z0-9_:.-]*="[^"<>]*")*)|/[a-z][a-z0-9:._-]*)>"#)
        let attribute = try Regex(#" ([a-z_:][a-z0-9_:.-]*)="([^"]*)""#)
        let hostile = Self.cases.map(\.0).joined(separator: "\n")
        for text in [
            hostile, String(hostile.reversed()), hostile.uppercased(), hostile.replacingOccurrences(of: "\n", with: ""),
        ] {
            let out = Self.sanitized(text)
            let tags = out.matches(of: tag)
            #expect(tags.count == out.filter { $0 == "<" }.count, "\(out)")
            for match in tags {
                let text = String(out[match.range])
                for pair in text.matches(of: attribute) {
                    let name = String(text[pair.output[1].range!])
                    // As a browser reads it: references decoded (case matters: `&COLON;` is none), spaces ignored.
                    let value = HTMLEntities.decode(String(text[pair.output[2].range!])).lowercased()
                        .filter { !$0.isWhitespace }
                    #expect(!name.hasPrefix("on") && name != "srcdoc", "\(text)")
                    if ["src", "href", "background", "srcset", "action", "formaction", "ping", "poster"].contains(name)
                    {
                        let remote = ["//", "\\", "/\\"]
                        #expect(!remote.contains { value.hasPrefix($0) }, "\(text)")
                        // A scheme (letters, digits, `+`, `.`, `-` before the first colon) is cid: or mailto: only.
                        if let colon = value.firstIndex(of: ":"), value.first?.isLetter == true,
                            value[..<colon].allSatisfy({
                                $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0))
                            })
                        {
                            #expect(["cid", "mailto"].contains(String(value[..<colon])), "\(text)")
                        }
                    }
                }
                for dropped in ["<script", "<base", "<meta", "<link", "<iframe", "<svg", "<object", "<embed", "<xmp"] {
                    #expect(!text.lowercased().hasPrefix(dropped), "\(text)")
                }
            }
            #expect(HTMLPartSanitizer.sanitize(out) == out)
        }
    }
}
