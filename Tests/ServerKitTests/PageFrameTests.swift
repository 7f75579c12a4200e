import Testing

@testable import ServerKit

@Suite("PageFrame: one frame, one sign-out form, one account style")
struct PageFrameTests {
    @Test("a signed-in frame: the sign-out form, the navigation with the current link, the heading, escaped")
    func signedIn() {
        let frame = PageFrame(
            title: "Your <inboxes>",
            account: PageFrame.Account(
                label: "ada@x.test", signOutAction: "/owner/sign-out", csrfField: "csrf_token", csrfToken: "t\"k"),
            navigation: PageFrame.Navigation(
                label: "Owner",
                links: [PageFrame.Link("/owner", "Inboxes", current: true), PageFrame.Link("/inbox", "Read", id: "r")]),
            css: ".mine{}")
        let page = frame.document(main: "<p>M</p>").text
        let header: String = """
            <header><form method="post" action="/owner/sign-out" id="sign-out-form" class="account">
            <span id="signed-in-as">ada<wbr>@x.<wbr>test</span>
            <input type="hidden" name="csrf_token" value="t&quot;k">
            <button type="submit" id="sign-out" class="secondary">Sign out</button>
            </form><nav class="page-links" aria-label="Owner"><a href="/owner" aria-current="page">Inboxes</a> · \
            <a id="r" href="/inbox">Read</a></nav><h1>Your &lt;inboxes&gt;</h1></header>
            """
        #expect(page.contains(header))
        #expect(page.contains(PageFrame.navigationCSS + PageFrame.accountCSS + ".mine{}</style>"))
        #expect(page.components(separatedBy: "id=\"sign-out-form\"").count == 2)
    }

    @Test("a current link that names the page: its heading is kept out of sight, not drawn twice (issue 83 item 11)")
    func currentLinkNamesThePage() {
        func page(current title: String) -> String {
            PageFrame(
                title: title,
                navigation: PageFrame.Navigation(
                    label: "Owner",
                    links: [
                        PageFrame.Link("/owner", "Your inboxes", current: title == "Your inboxes"),
                        PageFrame.Link("/owner/domains", "Your domains", current: title == "Your domains"),
                    ])
            ).document(main: "<p>M</p>").text
        }
        let named = page(current: "Your inboxes")
        #expect(named.contains(#"<h1 class="named-by-navigation">Your inboxes</h1>"#))
        #expect(named.contains(".named-by-navigation{position:absolute;width:1px;height:1px;"))
        #expect(page(current: "Allow access?").contains("<h1>Allow access?</h1>"), "no current link: the heading shows")
    }

    @Test("signed out: no account form, no account style; a heading and footer of the page's own")
    func signedOut() {
        let page = PageFrame(title: "T", heading: "<h1>H</h1><p class=\"lead\">L</p>", footer: "F")
            .document(main: "").text
        #expect(!page.contains("sign-out-form"))
        #expect(!page.contains(PageFrame.accountCSS))
        #expect(!page.contains(PageFrame.navigationCSS))
        #expect(page.contains("<header><h1>H</h1><p class=\"lead\">L</p></header>"))
        #expect(page.contains("<footer>F</footer>"))
    }
}
