import Testing

@testable import MailExtraction

/// The byte search the rules' keyword lists use instead of Foundation's: exact bytes, in a String or a Substring,
/// ASCII case folded only when asked.
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
