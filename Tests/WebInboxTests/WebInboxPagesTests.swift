import HTTP1
import PosternTestSupport
import Testing

@testable import WebInbox

/// The mailbox pages: what they show, how they escape, the HTML part's frame and policy, the parts and the actions.
@Suite("Web inbox: pages", .serialized)
struct WebInboxPagesTests {
    /// A harness with one signed-in account `reader@mail.localhost` and its browser.
    static func signedIn(_ backend: StorageBackend) async throws -> (WebInboxHarness, Browser) {
        let harness = try WebInboxHarness(backend)
        try await harness.account("reader@mail.localhost", password: "secret-one")
        let browser = harness.browser()
        try #require(
            try await browser.signIn(["kind": "account", "address": "reader@mail.localhost", "password": "secret-one"])
                .status == .seeOther)
        return (harness, browser)
    }

    static let mailbox = "/inbox/m/reader%40mail.localhost"

    @Test(
        "a hostile subject, sender and text are escaped on the list and the message page",
        arguments: StorageBackend.allCases)
    func escaping(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        let id = try await harness.deliver(
            WebInboxHarness.plain(
                subject: "<script>alert('s')</script>", from: "\"<img src=x onerror=alert(1)>\" <evil@example.com>",
                body: "</pre><script>alert('b')</script>"),
            to: "reader@mail.localhost")
        for path in [Self.mailbox, Self.mailbox + "/" + id] {
            let page = await browser.send(.GET, path)
            #expect(page.status == .ok)
            #expect(!page.text.contains("<script>"), "\(path)")
            #expect(!page.text.contains("<img src=x"), "\(path)")
            #expect(page.text.contains("&lt;script&gt;alert(&#39;s&#39;)&lt;/script&gt;"), "\(path)")
            #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(path)")
            #expect(page.headers["Cache-Control"] == "no-store")
            #expect(page.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        }
        // No script of the message's runs: a message page without an HTML part allows none, the list only this
        // origin's live script (a page with an HTML part, only that script too: `htmlPart`).
        let message = await browser.send(.GET, Self.mailbox + "/" + id)
        #expect(message.headers["Content-Security-Policy"]?.contains("script-src") == false)
        let list = await browser.send(.GET, Self.mailbox)
        let policy = try #require(list.headers["Content-Security-Policy"])
        let directives = policy.split(separator: ";").map { String($0.drop { $0 == " " }) }
        #expect(directives.filter { $0.hasPrefix("script-src") } == ["script-src 'self'"])
    }

    @Test(
        "opening a message marks it read, unless another site sent the browser there (Sec-Fetch-Site: cross-site)",
        arguments: StorageBackend.allCases)
    func crossSiteOpenLeavesUnread(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        let id = try await harness.deliver(WebInboxHarness.plain(subject: "Linked"), to: "reader@mail.localhost")
        let path = Self.mailbox + "/" + id
        func isRead() async throws -> Bool? {
            try await harness.mail.message(address: "reader@mail.localhost", id: id)?.summary.isRead
        }

        #expect(await browser.send(.GET, path, headers: [("Sec-Fetch-Site", "cross-site")]).status == .ok)
        #expect(try await isRead() == false)
        #expect(await browser.send(.GET, path, headers: [("Sec-Fetch-Site", "same-origin")]).status == .ok)
        #expect(try await isRead() == true)
    }

    @Test(
        "the HTML part is framed sandboxed without scripts (its origin kept for the page's sizing script) and served with its own CSP; remote content is blocked and said so",
        arguments: StorageBackend.allCases)
    func htmlPart(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        let raw = """
            From: Mallory <mallory@example.com>
            To: reader@mail.localhost
            Subject: Hostile
            MIME-Version: 1.0
            Content-Type: multipart/related; boundary="b1"

            --b1
            Content-Type: text/html; charset=utf-8

            <html><head><meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/x"></head><body>
            <script>window.canary=1</script><img src="http://127.0.0.1:9/remote.png" onerror="window.canary=2">
            <img src="cid:logo@example.com"><form action="http://127.0.0.1:9/post"><button>Go</button></form>
            <div style="background:url(http://127.0.0.1:9/bg.png)">x</div></body></html>
            --b1
            Content-Type: image/png
            Content-ID: <logo@example.com>
            Content-Transfer-Encoding: base64

            iVBORw0KGgo=
            --b1--

            """
        let id = try await harness.deliver(raw, to: "reader@mail.localhost")
        let path = Self.mailbox + "/" + id
        let page = await browser.send(.GET, path)
        #expect(page.status == .ok)
        #expect(page.text.contains("<iframe id=\"html-body\" class=\"html-body\" sandbox=\"allow-same-origin\""))
        #expect(!page.text.contains("allow-scripts"))
        #expect(page.text.contains("id=\"remote-blocked\""))
        // The page's one script (from this origin, no inline one) sizes the frame to the message.
        #expect(page.text.contains("<script src=\"/inbox/assets/live.js\" defer></script>"))
        #expect(
            page.headers["Content-Security-Policy"]
                == "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; frame-src 'self'; "
                + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")

        let frame = await browser.send(.GET, path + "/html")
        #expect(frame.status == .ok)
        let imageRoute = WebInboxHarness.publicURL + path + "/cid/"
        #expect(
            frame.headers["Content-Security-Policy"]
                == "default-src 'none'; img-src \(imageRoute); style-src 'unsafe-inline'; form-action 'none'; "
                + "frame-ancestors 'self'; base-uri 'none'; sandbox allow-same-origin")
        #expect(frame.headers["Cache-Control"] == "no-store")
        #expect(!frame.text.contains("<meta"))
        #expect(!frame.text.contains("cid:"))
        // The document itself is harmless, should a proxy strip the headers: no script, handler, base, meta or
        // remote URL is left for a browser without the CSP to act on.
        for hostile in ["<script", "canary", "onerror", "http://127.0.0.1:9", "x-meta", "refresh", "action="] {
            #expect(!frame.text.contains(hostile), "\(hostile)")
        }
        #expect(frame.text.contains("<div style=\"background:none\">x</div>") && frame.text.contains("<button>Go</button>"))
        // The inline image by its signed URL, with no cookie at all (the sandboxed frame sends none).
        let start = try #require(frame.text.range(of: "src=\"" + path + "/cid/"))
        let url = String(frame.text[start.lowerBound...].dropFirst(5).prefix { $0 != "\"" })
        let cookieless = harness.browser()
        let image = await cookieless.send(.GET, url)
        #expect(image.status == .ok)
        #expect(image.headers["Content-Type"] == "image/png")
        #expect(image.headers["X-Content-Type-Options"] == "nosniff")
        #expect(await cookieless.send(.GET, path + "/cid/9999999999.AAAA/logo@example.com").status == .notFound)
        // Without a session the frame's own route is no one's.
        #expect(await cookieless.send(.GET, path + "/html").status == .seeOther)
    }

    @Test(
        "the list is newest first, pages by position, searches by from and subject; unread rows are bold",
        arguments: StorageBackend.allCases)
    func listPagingAndSearch(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        var ids: [String] = []
        for n in 1...55 {
            ids.append(
                try await harness.deliver(
                    WebInboxHarness.plain(subject: "Message \(n)", from: n == 7 ? "grace@example.org" : "ada@example.com"),
                    to: "reader@mail.localhost"))
        }
        let first = await browser.send(.GET, Self.mailbox)
        #expect(first.text.contains("Message 55"))
        #expect(!first.text.contains(">Message 5<"))
        #expect(first.text.contains("id=\"older\""))
        #expect(!first.text.contains("id=\"newer\""))
        #expect(first.text.range(of: "Message 55")!.lowerBound < first.text.range(of: "Message 54")!.lowerBound)
        #expect(first.text.contains("class=\"message unread\""))
        let second = await browser.send(.GET, Self.mailbox + "?folder=inbox&position=50")
        #expect(second.text.contains(">Message 5<"))
        #expect(second.text.contains(">Message 1<"))
        #expect(!second.text.contains("Message 55"))
        #expect(second.text.contains("id=\"newer\""))
        #expect(!second.text.contains("id=\"older\""))
        let search = await browser.send(.GET, Self.mailbox + "?from=grace")
        #expect(search.text.contains(">Message 7<"))
        #expect(!search.text.contains(">Message 8<"))
        let subject = await browser.send(.GET, Self.mailbox + "?subject=Message+42")
        #expect(subject.text.contains(">Message 42<"))
        #expect(!subject.text.contains(">Message 41<"))

        // Opening marks read; "Mark unread" makes it bold again.
        let page = await browser.send(.GET, Self.mailbox + "/" + ids[54])
        #expect(page.text.contains("id=\"mark-unread\""))
        let read = await browser.send(.GET, Self.mailbox)
        #expect(read.text.contains("<tr class=\"message\" id=\"message-\(ids[54])\">"))
        let csrf = try #require(Browser.csrf(in: page))
        let marked = await browser.send(
            .POST, Self.mailbox + "/" + ids[54] + "/read", form: ["csrf_token": csrf, "seen": "0"])
        #expect(marked.status == .seeOther)
        #expect(await browser.send(.GET, Self.mailbox).text.contains(
            "<tr class=\"message unread\" id=\"message-\(ids[54])\">"))
    }

    @Test(
        "the message page lists the links the message holds, each once, to open; none for a message without",
        arguments: StorageBackend.allCases)
    func extractedLinks(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        let linked = try await harness.deliver(
            WebInboxHarness.plain(
                subject: "Confirm", body: "Confirm: https://app.example/c?t=1&x=2 or https://app.example/c?t=1&x=2"),
            to: "reader@mail.localhost")
        let page = await browser.send(.GET, Self.mailbox + "/" + linked)
        #expect(page.status == .ok)
        #expect(
            page.text.contains(
                "<ul id=\"links\"><li><a class=\"message-link\" href=\"https://app.example/c?t=1&amp;x=2\" "
                    + "rel=\"noopener noreferrer\" target=\"_blank\">https://app.example/c?t=1&amp;x=2</a></li></ul>"),
            "\(page.text)")
        let plain = try await harness.deliver(
            WebInboxHarness.plain(subject: "No links", body: "Nothing to follow."), to: "reader@mail.localhost")
        #expect(!(await browser.send(.GET, Self.mailbox + "/" + plain)).text.contains("id=\"links\""))
    }

    @Test(
        "attachments download as octet-stream attachments; the raw source is inert plain text",
        arguments: StorageBackend.allCases)
    func partsAreInert(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        let raw = """
            From: ada@example.com
            To: reader@mail.localhost
            Subject: With a file
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="b2"

            --b2
            Content-Type: text/plain

            See attached.
            --b2
            Content-Type: text/html
            Content-Disposition: attachment; filename="evil\\".html"

            <script>alert(1)</script>
            --b2--

            """
        let id = try await harness.deliver(raw, to: "reader@mail.localhost")
        let list = await browser.send(.GET, Self.mailbox)
        #expect(list.text.contains("class=\"attachment-mark\""))
        // A drawn paperclip with a label, never the emoji (no glyph without an emoji font).
        #expect(list.text.contains("<svg class=\"icon\" role=\"img\" aria-label=\"Has attachments\""))
        #expect(!list.text.contains("📎"))
        let page = await browser.send(.GET, Self.mailbox + "/" + id)
        #expect(page.text.contains("id=\"attachment-0\""))
        let file = await browser.send(.GET, Self.mailbox + "/" + id + "/attachment/0")
        #expect(file.status == .ok)
        #expect(file.headers["Content-Type"] == "application/octet-stream")
        #expect(file.headers["Content-Disposition"]?.hasPrefix("attachment; filename=\"") == true)
        #expect(file.headers["Content-Disposition"]?.dropFirst(22).dropLast().contains("\"") == false)
        #expect(file.text.contains("<script>alert(1)</script>"))
        #expect(await browser.send(.GET, Self.mailbox + "/" + id + "/attachment/7").status == .notFound)
        let source = await browser.send(.GET, Self.mailbox + "/" + id + "/raw")
        #expect(source.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(source.headers["Content-Security-Policy"] == "default-src 'none'; sandbox")
        #expect(source.text.contains("Subject: With a file"))
    }
}
