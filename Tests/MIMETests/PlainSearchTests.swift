import Testing

@testable import MIME

/// The byte search HTML's end tags and the extraction rules' keyword lists use instead of Foundation's: exact bytes,
/// in a String or a Substring, ASCII case folded only when asked.
@Suite("Plain search: keywords found by their bytes")
struct PlainSearchTests {
    @Test("found and not found, at the start, the end and past a partial match; an empty needle always")
    func includes() {
        #expect("verify your email".includes("verify"))
        #expect("please verify".includes("verify"))
        #expect("vevverify".includes("verify"))
        #expect(!"verif".includes("verify"))
        #expect(!"".includes("x"))
        #expect("anything".includes(""))
        #expect("bestätigen sie".includes("bestätigen"))
        #expect(!"Verify".includes("verify"))
    }

    @Test("the range is the needle's, in a Substring too, and ignores ASCII case only when asked")
    func ranges() throws {
        let text = "<p>x</p><STYLE>a{}</Style>rest"
        let tail = text[text.index(text.startIndex, offsetBy: 8)...]
        let range = try #require(tail.byteRange(of: "</style", ignoringASCIICase: true))
        #expect(tail[range] == "</Style")
        #expect(tail.byteRange(of: "</style") == nil)
        let scheme = try #require("https://example.com/verify".byteRange(of: "://"))
        #expect("https://example.com/verify"[scheme.upperBound...] == "example.com/verify")
        let unicode = "código: 123"
        #expect(unicode[try #require(unicode.byteRange(of: ": "))] == ": ")
    }
}

/// The preview's text of an HTML part: tags out, style and script with their contents out, six entities in.
@Suite("Preview: HTML stripped by its bytes")
struct PreviewStripTests {
    @Test("tags become spaces, style and script go whatever their case, the six entities decode once")
    func stripped() {
        #expect(Preview.stripTags("<p>Hi&nbsp;<b>ann</b></p>") == " Hi  ann  ")
        #expect(Preview.stripTags("a<STYLE>p{color:red}</Style>b<script>x<y</SCRIPT>c") == "abc")
        #expect(Preview.stripTags("1 &lt; 2 &amp;&amp; 3 &gt; 2, &quot;q&quot; &#39;s&#39;") == "1 < 2 && 3 > 2, \"q\" 's'")
        #expect(Preview.stripTags("&amp;lt; stays &lt;") == "&lt; stays <")
        #expect(Preview.stripTags("café <i>crème</i> & co") == "café  crème  & co")
        #expect(Preview.stripTags("open <tag never closes") == "open ")
        #expect(Preview.decodingBasicEntities("no entity") == "no entity")
    }

    @Test("a preview collapses white space and stops at 256 characters, a space counted as one")
    func preview() {
        #expect(Preview.make(text: "  Hello \r\n\t world  ", html: nil) == "Hello world")
        let long = String(repeating: "ab ", count: 200)
        let preview = Preview.make(text: long, html: nil)
        #expect(preview.count == 256 && preview.hasPrefix("ab ab") && !preview.hasSuffix(" "))
        #expect(Preview.make(text: nil, html: "<p>Héllo</p>  <p>wörld</p>") == "Héllo wörld")
        #expect(Preview.make(text: nil, html: nil) == "")
    }
}
