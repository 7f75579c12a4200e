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

    @Test("names every mail door served: the Mailpit, Mailosaur, mail.tm and mail.cx APIs, IMAP, POP3, submission")
    func mailDoors() throws {
        var configuration = PosternConfiguration()
        configuration.imap.listener.enabled = true
        configuration.imap.listener.implicitTLSPort = 1993
        configuration.pop3.listener.enabled = true
        configuration.pop3.listener.port = 0
        configuration.submission.listener.enabled = true
        configuration.submission.listener.implicitTLSPort = 1465
        configuration.mailCX.domains = ["cx.localhost"]
        let doors = LandingPage.doors(configuration)
        let ids = [
            "door-mailpit", "door-mailosaur", "door-mailtm", "door-mailcx", "door-imap", "door-pop3", "door-submission",
        ]
        #expect(doors.map(\.id) == ids)
        let html = LandingPage.sections(baseURL: "http://landing.test", doors: doors).text
        #expect(html.contains("<ul id=\"doors\">"))
        #expect(html.contains("<li id=\"door-mailpit\"><code>/mailpit/api/v1</code>"))
        #expect(html.contains("<li id=\"door-mailosaur\"><code>/mailosaur/</code>"))
        #expect(html.contains("<li id=\"door-mailtm\"><code>/mailtm</code>"))
        #expect(html.contains("<li id=\"door-mailcx\"><code>/mailcx/v1</code>") && html.contains("cx.localhost"))
        #expect(html.contains("<code>IMAP on port 1143 (STARTTLS) and 1993 (implicit TLS)</code>"))
        #expect(html.contains("<li id=\"door-pop3\"><code>POP3</code>"))
        #expect(
            html.contains(
                "<li id=\"door-submission\"><code>Submission on port 1587 (STARTTLS) and 1465 (implicit TLS)</code>"))
        for word in ["IMAP", "POP3", "Mailpit", "Mailosaur", "mail.tm", "mail.cx"] {
            #expect(PosternIntro.surfaces.contains(word), "the intro leaves out \(word)")
        }
        configuration.mailpit.basePath = nil
        configuration.mailosaur.basePath = nil
        configuration.mailTM.basePath = nil
        configuration.mailCX.basePath = nil
        configuration.imap.listener.enabled = false
        configuration.pop3.listener.enabled = false
        configuration.submission.listener.enabled = false
        #expect(LandingPage.doors(configuration).isEmpty)
        #expect(!LandingPage.sections(baseURL: "http://landing.test").text.contains("id=\"doors\""))
    }

    @Test("the base URL is escaped where it shows")
    func escapes() {
        let html = LandingPage.sections(baseURL: "http://x.test/<b>\"").text
        #expect(!html.contains("<b>"))
        #expect(html.contains("http://x.test/&lt;b&gt;&quot;"))
    }
}
