import Testing

@testable import ServerKit

/// The pages' shared components (issues 67 and 68): a URL query's own escaping context, one notice with its kind, one
/// `<time>`, the button styles, and a landing page's title said once.
@Suite("Page components: query context, notice kinds, one <time>, button styles")
struct PageComponentTests {
    @Test("a query value keeps all of itself: percent-encoded, then escaped for the attribute")
    func queryContext() {
        let next = "/owner/x?a=1&b=2#top"
        let link: HTML = "<a href=\"/owner/sign-in?next=\(query: next)\">Sign in</a>"
        #expect(link.text == "<a href=\"/owner/sign-in?next=%2Fowner%2Fx%3Fa%3D1%26b%3D2%23top\">Sign in</a>")
        // As text, the same value would end the query at its own `&`: the context is what keeps `b=2` in `next`.
        let asText: HTML = "<a href=\"/owner/sign-in?next=\(next)\">"
        #expect(asText.text.contains("next=/owner/x?a=1&amp;b=2#top"))
        let quote: HTML = "<a href=\"/x?q=\(query: "\"><script>")\">"
        #expect(quote.text == "<a href=\"/x?q=%22%3E%3Cscript%3E\">")
    }

    @Test("each kind draws its class, role and id; success and warning are status, error is an alert")
    func noticeKinds() {
        #expect(
            HTML.notice("Sent.", .success).text
                == "<p class=\"flash success\" role=\"status\" id=\"notice\" data-notice=\"success\">Sent.</p>")
        #expect(
            HTML.notice("Held, <not> sent.", .warning).text
                == "<p class=\"flash warning\" role=\"status\" id=\"notice\" data-notice=\"warning\">Held, &lt;not&gt; sent.</p>")
        #expect(
            HTML.notice("No.", .error).text
                == "<p class=\"flash error\" role=\"alert\" id=\"error\" data-notice=\"error\">No.</p>")
        #expect(HTML.notice(nil, .success).isEmpty)
        #expect(HTML.notice(nil as PageNotice?).isEmpty)
        // Every kind has its own colour in the shared sheet.
        for kind in PageNotice.Kind.allCases {
            #expect(HTMLPage.document(title: "T", header: "", main: "").text.contains(".\(kind.rawValue){background:"))
        }
    }

    @Test("one <time>: the instant in datetime, minutes in UTC in the text")
    func oneTime() {
        #expect(
            HTML.time(1_782_897_240).text == "<time datetime=\"2026-07-01T09:14:00Z\">2026-07-01 09:14 UTC</time>")
        #expect(HTML.time(0).text == "<time datetime=\"1970-01-01T00:00:00Z\">1970-01-01 00:00 UTC</time>")
    }

    @Test("a danger or secondary button says so in its class; a primary one has none; the sheet styles both")
    func buttonStyles() {
        #expect(ButtonStyle.danger.classAttribute.text == " class=\"danger\"")
        #expect(ButtonStyle.secondary.classAttribute.text == " class=\"secondary\"")
        #expect(ButtonStyle.primary.classAttribute.isEmpty)
        let sheet = HTMLPage.document(title: "T", header: "", main: "").text
        #expect(sheet.contains("button.danger{") && sheet.contains("button.secondary{"))
    }

    @Test("a page titled Postern is not \"Postern · Postern\"; any other says where it is")
    func titleOnce() {
        #expect(HTMLPage.document(title: "Postern", header: "", main: "").text.contains("<title>Postern</title>"))
        #expect(HTMLPage.document(title: "Sign in", header: "", main: "").text.contains("<title>Sign in · Postern</title>"))
    }
}
