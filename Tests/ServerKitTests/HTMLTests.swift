import Testing

@testable import ServerKit

@Suite("HTML: interpolated text is escaped, interpolated HTML is not")
struct HTMLTests {
    @Test("a String, a Substring and a number are escaped; literal markup stays")
    func escapesText() {
        let name = "<script>alert('x') & \"y\"</script>"
        let html: HTML = "<p class=\"n\" title=\"\(name)\">\(name[...])</p><td>\(42)</td>"
        let escaped = "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        #expect(html.text == "<p class=\"n\" title=\"\(escaped)\">\(escaped)</p><td>42</td>")
    }

    @Test("HTML is inserted as it is, once: no double escaping")
    func keepsHTML() {
        let inner: HTML = "<b>\("a&b")</b>"
        let outer: HTML = "<p>\(inner)</p>"
        #expect(outer.text == "<p><b>a&amp;b</b></p>")
        let none: HTML? = nil
        #expect(("<i>\(none)</i>" as HTML).text == "<i></i>")
    }

    @Test("HTML(unsafe:) is the raw door; .text and .address escape")
    func doors() {
        #expect(HTML(unsafe: "<hr>").text == "<hr>")
        #expect(HTML.text("<hr>").text == "&lt;hr&gt;")
        #expect(HTML.address("a@b.c").text == "a<wbr>@b.<wbr>c")
    }

    @Test("joined puts the separator between pieces only; + and += concatenate")
    func joining() {
        let one = "1<"
        let items: [HTML] = ["<li>\(one)</li>", "<li>2</li>", "<li>3</li>"]
        #expect(items.joined(separator: "\n").text == "<li>1&lt;</li>\n<li>2</li>\n<li>3</li>")
        #expect([HTML]().joined(separator: ",").isEmpty)
        var html: HTML = "<a>"
        html += "b" as HTML
        #expect((html + "</a>").text == "<a>b</a>")
    }
}
