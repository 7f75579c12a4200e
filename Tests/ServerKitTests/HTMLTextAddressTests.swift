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
}
