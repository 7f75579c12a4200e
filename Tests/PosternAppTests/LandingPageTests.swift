import Testing

@testable import PosternApp

@Suite("The landing page at /")
struct LandingPageTests {
    @Test("names what the server serves and links to the guide, the inbox, the owners, the API description and the demo")
    func links() {
        let html = LandingPage.sections(baseURL: "http://landing.test").text
        #expect(LandingPage.landing(baseURL: "http://landing.test").lead.hasPrefix(PosternIntro.summary))
        for (id, path) in [
            ("link-llms", "/llms.txt"), ("link-inbox", "/inbox"), ("link-owner", "/owner"),
            ("link-openapi", "/openapi.json"), ("link-demo", "/login_test"),
        ] {
            #expect(html.contains("id=\"\(id)\" href=\"\(path)\""), "no \(id) to \(path)")
        }
        #expect(html.contains("href=\"/llms.txt#mcp-server-atomic-mail-compatible\""))
        #expect(html.contains("postern agent signup --url http://landing.test --username NAME"))
        #expect(html.contains("<code>http://landing.test/mcp</code>"))
    }

    @Test("the base URL is escaped where it shows")
    func escapes() {
        let html = LandingPage.sections(baseURL: "http://x.test/<b>\"").text
        #expect(!html.contains("<b>"))
        #expect(html.contains("http://x.test/&lt;b&gt;&quot;"))
    }
}
