import ServerKit
import Testing

/// An address in a page breaks only after its dots and before its `@`, escaped as any text is.
@Suite("HTMLText.address: line breaks at an address's dots and @, never mid-word")
struct HTMLTextAddressTests {
    @Test("a <wbr> before the @ and after each dot; the text otherwise escaped, unchanged")
    func breaks() {
        #expect(HTMLText.address("ada-bot@agents.example.com") == "ada-bot<wbr>@agents.<wbr>example.<wbr>com")
        #expect(HTMLText.address("Ada <ada@x.test>") == "Ada &lt;ada<wbr>@x.<wbr>test&gt;")
        #expect(HTMLText.address("<script>") == HTMLText.escape("<script>"))
        #expect(HTMLText.address("") == "")
    }

    @Test("non-ASCII text: characters kept whole, a full stop with a combining mark is no full stop")
    func nonASCII() {
        #expect(HTMLText.address("Zoë <zoë@bücher.de>") == "Zoë &lt;zoë<wbr>@bücher.<wbr>de&gt;")
        #expect(HTMLText.address("a.\u{301}b@x") == "a.\u{301}b<wbr>@x")
        #expect(HTMLText.address("日本@例え.jp") == "日本<wbr>@例え.<wbr>jp")
    }
}

@Suite("HTMLText.escape: the five escaped, every other byte kept")
struct HTMLTextEscapeTests {
    @Test(
        "known answers",
        arguments: [
            ("", ""), ("plain text", "plain text"), ("&<>\"'", "&amp;&lt;&gt;&quot;&#39;"),
            ("Zoë & Jörg <zj@bücher.de>", "Zoë &amp; Jörg &lt;zj@bücher.de&gt;"), ("€'😀'", "€&#39;😀&#39;"),
            ("e\u{301}<", "e\u{301}&lt;"), ("a&amp;b", "a&amp;amp;b"),
        ])
    func knownAnswers(text: String, escaped: String) {
        #expect(HTMLText.escape(text) == escaped)
        #expect(Array(HTMLText.escape(text).utf8) == Array(escaped.utf8))
    }
}
