import Foundation
import HTTP1
import PosternTestSupport
import ServerKit
import Storage
import Testing

@testable import WebInbox

/// The Pro dashboard (`/inbox/dashboard`): tokens, domains, the webhook and the sandbox through the Mail.td API's own
/// Pro functions, what a post made shown once, and nobody but the signed-in Pro user reaching any of it.
@Suite("Web inbox: the Pro dashboard", .serialized)
struct WebInboxDashboardTests {
    static let dashboard = "/inbox/dashboard"

    /// A harness with Pro user `pro@example.com` (id and Pro JWT) signed in to the web inbox in a browser.
    static func signedIn(
        _ backend: StorageBackend, _ email: String = "pro@example.com", harness: WebInboxHarness? = nil
    ) async throws
        -> (harness: WebInboxHarness, browser: Browser, id: String, jwt: String)
    {
        let harness = try harness ?? WebInboxHarness(backend)
        let (id, jwt) = try await harness.proLogin(email)
        let browser = harness.browser()
        try #require(
            try await browser.signIn(["kind": "pro", "email": email, "password": "pro-password"]).status == .seeOther)
        return (harness, browser, id, jwt)
    }

    /// Posts `form` to `path` with the CSRF token of the dashboard page; the answer.
    static func post(_ browser: Browser, _ path: String, _ form: [String: String] = [:]) async throws -> HTTPResponse {
        let page = await browser.send(.GET, dashboard)
        try #require(page.status == .ok)
        let csrf = try #require(Browser.csrf(in: page))
        return await browser.send(.POST, path, form: form.merging(["csrf_token": csrf]) { a, _ in a })
    }

    /// The text of the first element with `id` (tags dropped, entities undone); nil when there is none.
    static func element(_ id: String, in html: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
        let rest = html[start.upperBound...]
        guard let open = rest.firstIndex(of: ">"), let close = rest[open...].range(of: "</") else { return nil }
        return text(String(rest[rest.index(after: open)..<close.lowerBound]))
    }

    /// The cells (`.type`, `.host`, `.value`, `.state`) of every `tr.record` in `html`, in order.
    static func records(in html: String) -> [[String]] {
        html.components(separatedBy: "<tr class=\"record\">").dropFirst().map { row in
            ["type", "host", "value", "state"].map { name in
                guard let start = row.range(of: "class=\"\(name)\""),
                    let open = row[start.upperBound...].firstIndex(of: ">"),
                    let end = row[open...].range(of: "</td>")
                else { return "" }
                return text(String(row[row.index(after: open)..<end.lowerBound]))
            }
        }
    }

    static func text(_ html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" {
                inTag = true
            } else if character == ">" {
                inTag = false
            } else if !inTag {
                out.append(character)
            }
        }
        return out.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The JSON body of a Mail.td API call with `bearer`.
    static func api(
        _ harness: WebInboxHarness, _ method: HTTPMethod, _ path: String, bearer: String, json: String? = nil
    ) async throws -> (status: HTTPStatus, body: [String: Any]) {
        let response = await harness.browser().send(
            method, path, json: json, headers: [("Authorization", "Bearer " + bearer)])
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, body)
    }

    @Test(
        "a new token is shown once after the post's 303, never in its URL or a cookie, and works on the API",
        arguments: StorageBackend.allCases)
    func tokenShownOnce(_ backend: StorageBackend) async throws {
        let (harness, browser, _, _) = try await Self.signedIn(backend)
        let created = try await Self.post(browser, "/inbox/dashboard/tokens", ["name": "ci-token"])
        #expect(created.status == .seeOther)
        #expect(created.headers["Location"] == Self.dashboard)
        let shown = await browser.send(.GET, Self.dashboard)
        let token = try #require(Self.element("token-shown", in: shown.text))
        #expect(token.hasPrefix("tm_pro_"))
        #expect(Self.element("notice", in: shown.text) != nil)
        #expect(!created.headers.values("Set-Cookie").joined().contains(token))
        #expect(!shown.headers.values("Set-Cookie").joined().contains(token))
        #expect(!browser.jar.cookies.values.contains { $0.contains("tm_pro_") })
        #expect(try await Self.api(harness, .GET, "/api/user/me", bearer: token).status == .ok)

        let again = await browser.send(.GET, Self.dashboard)
        #expect(again.status == .ok)
        #expect(!again.text.contains("id=\"token-shown\""))
        #expect(!again.text.contains(token))
        #expect(again.text.contains("<span class=\"name\">ci-token</span>"))
    }

    @Test(
        "the flash waits sealed to its session: the table holds no token, another session reads nothing",
        arguments: StorageBackend.allCases)
    func flashIsSealedToItsSession(_ backend: StorageBackend) async throws {
        let (harness, browser, _, _) = try await Self.signedIn(backend)
        let other = harness.browser()
        try #require(
            try await other.signIn(["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
                .status == .seeOther)
        _ = try await Self.post(browser, "/inbox/dashboard/tokens", ["name": "sealed"])
        let rows = try await harness.test.database.read { connection in
            try connection.query("SELECT sealed FROM web_inbox_flashes", [])
        }
        try #require(rows.count == 1)
        let sealed = try #require(rows[0].blob("sealed"))
        #expect(!String(decoding: sealed, as: UTF8.self).contains("tm_pro_"))
        let elsewhere = await other.send(.GET, Self.dashboard)
        #expect(elsewhere.status == .ok)
        #expect(!elsewhere.text.contains("id=\"token-shown\""))
        #expect(
            Self.element("token-shown", in: await browser.send(.GET, Self.dashboard).text)?.hasPrefix("tm_pro_") == true
        )

        // Signing out forgets a flash never shown.
        _ = try await Self.post(browser, "/inbox/dashboard/tokens", ["name": "unseen"])
        let page = await browser.send(.GET, "/inbox")
        let csrf = try #require(Browser.csrf(in: page))
        #expect(await browser.send(.POST, "/inbox/sign-out", form: ["csrf_token": csrf]).status == .seeOther)
        let left = try await harness.test.database.read { connection in
            try connection.query("SELECT sealed FROM web_inbox_flashes", [])
        }
        #expect(left.isEmpty)
    }

    @Test("a token revoked on the dashboard stops working on the API at once", arguments: StorageBackend.allCases)
    func revokedTokenStops(_ backend: StorageBackend) async throws {
        let (harness, browser, _, jwt) = try await Self.signedIn(backend)
        let token = try await harness.apiToken(bearer: jwt)
        #expect(try await Self.api(harness, .GET, "/api/user/me", bearer: token).status == .ok)
        let listed = try await Self.api(harness, .GET, "/api/user/tokens", bearer: jwt)
        let id = try #require((listed.body["tokens"] as? [[String: Any]])?.first?["id"] as? String)
        let page = await browser.send(.GET, Self.dashboard)
        #expect(page.text.contains("action=\"/inbox/dashboard/tokens/\(id)/revoke\""))

        let revoked = try await Self.post(browser, "/inbox/dashboard/tokens/\(id)/revoke")
        #expect(revoked.status == .seeOther)
        #expect(try await Self.api(harness, .GET, "/api/user/me", bearer: token).status == .unauthorized)
        let after = await browser.send(.GET, Self.dashboard)
        #expect(Self.element("notice", in: after.text) != nil)
        #expect(!after.text.contains("action=\"/inbox/dashboard/tokens/\(id)/revoke\""))
        #expect(after.text.contains("class=\"revoked\""))
    }

    @Test(
        "a domain's records on the dashboard: the API's (TXT token, MX, DKIM keys, RSA first), then SPF and DMARC",
        arguments: StorageBackend.allCases)
    func domainRecordsAreTheAPIs(_ backend: StorageBackend) async throws {
        let (harness, browser, _, jwt) = try await Self.signedIn(backend)
        let created = try await Self.api(
            harness, .POST, "/api/user/domains", bearer: jwt, json: #"{"domain":"api-made.example"}"#)
        try #require(created.status == .created)
        let apiRecords = try #require(created.body["dns_records"] as? [[String: Any]]).map { record in
            [record["type"] as? String ?? "", record["host"] as? String ?? "", record["value"] as? String ?? ""]
        }
        let page = await browser.send(.GET, Self.dashboard)
        let shown = Self.records(in: page.text)
        // The API's records, then the SPF and DMARC records sending from the domain needs (not in the API's).
        #expect(shown.prefix(4).map { Array($0.prefix(3)) } == apiRecords)
        #expect(
            shown.dropFirst(4).map { Array($0.prefix(3)) }
                == [
                    ["TXT", "api-made.example", "v=spf1 mx -all"],
                    [
                        "TXT", "_dmarc.api-made.example",
                        "v=DMARC1; p=quarantine; rua=mailto:postmaster@api-made.example",
                    ],
                ])
        #expect(shown.map { $0[3] } == Array(repeating: "pending", count: 6))
        #expect(
            shown[2..<4].map { $0[2].split(separator: ";")[1].trimmingCharacters(in: .whitespaces) }
                == ["k=rsa", "k=ed25519"])

        // Added on the dashboard: the API lists it, with the TXT token the page shows.
        #expect(
            try await Self.post(browser, "/inbox/dashboard/domains", ["domain": "Page-Made.Example"]).status
                == .seeOther)
        let after = await browser.send(.GET, Self.dashboard)
        #expect(Self.element("notice", in: after.text)?.contains("page-made.example") == true)
        let listed = try #require(
            try await Self.api(harness, .GET, "/api/user/domains", bearer: jwt).body["domains"] as? [[String: Any]])
        let claim = try #require(listed.first { $0["domain"] as? String == "page-made.example" })
        let token = try #require(claim["verify_token"] as? String)
        #expect(
            Self.records(in: after.text).contains { $0[0] == "TXT" && $0[1] == "page-made.example" && $0[2] == token })
    }

    @Test(
        "each dashboard notice has its kind: a domain added is success, one checked and still pending a warning, a refusal an error",
        arguments: StorageBackend.allCases)
    func noticeKinds(_ backend: StorageBackend) async throws {
        let dns = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { dns.stop() }
        let harness = try WebInboxHarness(backend, dnsResolver: dns.address)
        let (_, browser, _, jwt) = try await Self.signedIn(backend, harness: harness)
        func kind(after path: String, _ form: [String: String] = [:]) async throws -> String? {
            _ = try await Self.post(browser, path, form)
            let page = await browser.send(.GET, Self.dashboard).text
            let notice = try #require(page.range(of: "data-notice=\""))
            return page[notice.upperBound...].split(separator: "\"").first.map(String.init)
        }
        #expect(try await kind(after: "/inbox/dashboard/domains", ["domain": "pending.example"]) == "success")
        let listed = try #require(
            try await Self.api(harness, .GET, "/api/user/domains", bearer: jwt).body["domains"] as? [[String: Any]])
        let id = try #require(listed.first?["id"] as? String)
        #expect(try await kind(after: "/inbox/dashboard/domains/\(id)/verify") == "warning")
        #expect(try await kind(after: "/inbox/dashboard/domains", ["domain": "not a domain"]) == "error")
    }

    @Test("the API's limits and refusals apply on the dashboard, in #error", arguments: StorageBackend.allCases)
    func limitsApply(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.mailbox.accounts.createProUser(
            email: "small@example.com", password: "pro-password", maxAccounts: 1, maxDomains: 1)
        let browser = harness.browser()
        try #require(
            try await browser.signIn(["kind": "pro", "email": "small@example.com", "password": "pro-password"])
                .status == .seeOther)
        _ = try await Self.post(browser, "/inbox/dashboard/domains", ["domain": "first.example"])
        #expect(Self.element("error", in: await browser.send(.GET, Self.dashboard).text) == nil)
        for (path, form, words) in [
            ("/inbox/dashboard/domains", ["domain": "second.example"], "as many domains"),
            ("/inbox/dashboard/domains", ["domain": "mail.localhost"], "already in use"),
            ("/inbox/dashboard/domains", ["domain": "not a domain"], "not a domain"),
            ("/inbox/dashboard/tokens", ["name": String(repeating: "n", count: 101)], "100 characters"),
            ("/inbox/dashboard/webhook", ["url": "http://hooks.example.com/"], "https"),
            ("/inbox/dashboard/webhook", ["url": "https://127.0.0.1/x"], "https"),
            ("/inbox/dashboard/webhook", ["url": "https://hooks.example.com/", "events": "email.sent"], "event"),
        ] {
            #expect(try await Self.post(browser, path, form).status == .seeOther)
            let page = await browser.send(.GET, Self.dashboard)
            #expect(Self.element("error", in: page.text)?.contains(words) == true, "\(path) \(form)")
        }
        #expect(!(await browser.send(.GET, Self.dashboard).text.contains("second.example")))
    }

    @Test(
        "the webhook's secret is shown once; rotating shows a new one; deleting removes it",
        arguments: StorageBackend.allCases)
    func webhookSecret(_ backend: StorageBackend) async throws {
        let (harness, browser, _, jwt) = try await Self.signedIn(backend)
        let created = try await Self.post(
            browser, "/inbox/dashboard/webhook", ["url": "https://hooks.example.com/in", "events": "email.received"])
        #expect(created.status == .seeOther)
        let page = await browser.send(.GET, Self.dashboard)
        let secret = try #require(Self.element("webhook-secret-shown", in: page.text))
        #expect(secret.hasPrefix("whsec_"))
        #expect(!(await browser.send(.GET, Self.dashboard).text.contains(secret)))
        let listed = try #require(
            try await Self.api(harness, .GET, "/api/user/webhooks", bearer: jwt).body["webhooks"] as? [[String: Any]])
        let id = try #require(listed.first?["id"] as? String)
        #expect(listed.first?["url"] as? String == "https://hooks.example.com/in")
        #expect(page.text.contains("id=\"no-deliveries\""))

        // A second one is the API's refusal.
        _ = try await Self.post(browser, "/inbox/dashboard/webhook", ["url": "https://other.example.com/"])
        #expect(Self.element("error", in: await browser.send(.GET, Self.dashboard).text)?.contains("already") == true)

        #expect(try await Self.post(browser, "/inbox/dashboard/webhook/\(id)/rotate").status == .seeOther)
        let rotated = try #require(
            Self.element("webhook-secret-shown", in: await browser.send(.GET, Self.dashboard).text))
        #expect(rotated.hasPrefix("whsec_"))
        #expect(rotated != secret)

        #expect(try await Self.post(browser, "/inbox/dashboard/webhook/\(id)/delete").status == .seeOther)
        let gone = try await Self.api(harness, .GET, "/api/user/webhooks", bearer: jwt)
        #expect((gone.body["webhooks"] as? [Any])?.isEmpty == true)
        #expect(await browser.send(.GET, Self.dashboard).text.contains("id=\"create-webhook-form\""))
    }

    @Test(
        "another Pro user's token, domain and webhook ids are a 404 on every post, and stay as they were",
        arguments: StorageBackend.allCases)
    func anotherUsersIDs(_ backend: StorageBackend) async throws {
        let (harness, owner, _, jwt) = try await Self.signedIn(backend)
        let token = try await harness.apiToken(bearer: jwt)
        let tokenID = try #require(
            (try await Self.api(harness, .GET, "/api/user/tokens", bearer: jwt).body["tokens"] as? [[String: Any]])?
                .first?["id"] as? String)
        let domain = try await Self.api(
            harness, .POST, "/api/user/domains", bearer: jwt, json: #"{"domain":"owned.example"}"#)
        let domainID = try #require(domain.body["id"] as? String)
        let hook = try await Self.api(
            harness, .POST, "/api/user/webhooks", bearer: jwt, json: #"{"url":"https://hooks.example.com/a"}"#)
        let hookID = try #require(hook.body["id"] as? String)
        #expect(await owner.send(.GET, Self.dashboard).status == .ok)

        let (_, rival, _, _) = try await Self.signedIn(backend, "rival@example.com", harness: harness)
        for path in [
            "/inbox/dashboard/tokens/\(tokenID)/revoke", "/inbox/dashboard/domains/\(domainID)/verify",
            "/inbox/dashboard/domains/\(domainID)/delete", "/inbox/dashboard/webhook/\(hookID)/rotate",
            "/inbox/dashboard/webhook/\(hookID)/delete", "/inbox/dashboard/tokens/not-a-uuid/revoke",
        ] {
            let answer = try await Self.post(rival, path)
            #expect(answer.status == .notFound, "\(path)")
            #expect(answer.text.contains("There is no such mailbox or message."), "\(path)")
        }
        let rivalPage = await rival.send(.GET, Self.dashboard)
        #expect(!rivalPage.text.contains("owned.example"))
        #expect(!rivalPage.text.contains(hookID))
        #expect(try await Self.api(harness, .GET, "/api/user/me", bearer: token).status == .ok)
        let domains = try await Self.api(harness, .GET, "/api/user/domains", bearer: jwt)
        #expect((domains.body["domains"] as? [Any])?.count == 1)
        let hooks = try await Self.api(harness, .GET, "/api/user/webhooks", bearer: jwt)
        #expect((hooks.body["webhooks"] as? [Any])?.count == 1)
    }

    @Test(
        "anyone but a signed-in Pro user gets the one 404 at every dashboard route, and no dashboard link",
        arguments: StorageBackend.allCases)
    func onlyProUsers(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account("reader@mail.localhost", password: "secret-one")
        let account = harness.browser()
        try #require(
            try await account.signIn(["kind": "account", "address": "reader@mail.localhost", "password": "secret-one"])
                .status == .seeOther)
        let (owner, _) = try await harness.owner("ada@example.com", inbox: "ada-bot")
        let linked = harness.browser()
        let link = try await harness.service.sessions.makeLink(address: "reader@mail.localhost", lifetime: 600)
        let linkPage = await linked.send(.GET, "/inbox/link/" + link)
        let linkCSRF = try #require(Browser.csrf(in: linkPage))
        try #require(
            await linked.send(.POST, "/inbox/link", form: ["csrf_token": linkCSRF, "token": link]).status == .seeOther)
        let nobody = harness.browser()

        for (who, browser) in [("account", account), ("owner", owner), ("link", linked), ("signed out", nobody)] {
            let page = await browser.send(.GET, Self.dashboard)
            #expect(page.status == .notFound, "\(who)")
            #expect(page.text.contains("There is no such mailbox or message."), "\(who)")
            let csrf = Browser.csrf(in: await browser.send(.GET, "/inbox")) ?? ""
            for path in ["/inbox/dashboard/tokens", "/inbox/dashboard/domains", "/inbox/dashboard/webhook"] {
                let post = await browser.send(
                    .POST, path, form: ["csrf_token": csrf, "name": "x", "domain": "x.example"])
                #expect(post.status == .notFound, "\(who) \(path)")
            }
            let home = await browser.send(.GET, "/inbox/m/reader%40mail.localhost")
            #expect(!home.text.contains("id=\"dashboard\""), "\(who)")
        }
        let (_, pro, _, _) = try await Self.signedIn(backend, harness: harness)
        #expect(await pro.send(.GET, "/inbox").text.contains("<a id=\"dashboard\" href=\"/inbox/dashboard\""))
    }

    @Test(
        "a dashboard post without the session's CSRF token is refused and changes nothing",
        arguments: StorageBackend.allCases)
    func csrfRefused(_ backend: StorageBackend) async throws {
        let (harness, browser, _, jwt) = try await Self.signedIn(backend)
        let (_, other, _, _) = try await Self.signedIn(backend, "other@example.com", harness: harness)
        let foreign = try #require(Browser.csrf(in: await other.send(.GET, Self.dashboard)))
        for form in [
            ["name": "forged"], ["name": "forged", "csrf_token": foreign], ["name": "forged", "csrf_token": ""],
        ] {
            let answer = await browser.send(.POST, "/inbox/dashboard/tokens", form: form)
            #expect(answer.status == .forbidden)
            #expect(answer.text.contains("id=\"error\""))
        }
        for path in ["/inbox/dashboard/domains", "/inbox/dashboard/webhook"] {
            #expect(
                await browser.send(.POST, path, form: ["domain": "x.example", "url": "https://h.example.com/"]).status
                    == .forbidden)
        }
        let tokens = try await Self.api(harness, .GET, "/api/user/tokens", bearer: jwt)
        #expect((tokens.body["tokens"] as? [Any])?.isEmpty == true)
        let domains = try await Self.api(harness, .GET, "/api/user/domains", bearer: jwt)
        #expect((domains.body["domains"] as? [Any])?.isEmpty == true)
    }

    @Test(
        "the accounts and the sandbox: each account links to its mailbox; the sandbox reads Sandbox, with its count",
        arguments: StorageBackend.allCases)
    func accountsAndSandbox(_ backend: StorageBackend) async throws {
        let (harness, browser, id, jwt) = try await Self.signedIn(backend)
        try await harness.account("one@pro.localhost", bearer: jwt)
        var page = await browser.send(.GET, Self.dashboard)
        #expect(
            page.text.contains(
                "<li class=\"account\"><a class=\"address\" href=\"/inbox/m/one%40pro.localhost\">"
                    + "one<wbr>@pro.<wbr>localhost</a>"
            ))
        #expect(page.text.contains("id=\"no-sandbox\""))

        let raw = Array("From: app@example.com\r\nTo: user@example.org\r\nSubject: Captured\r\n\r\nHi.\r\n".utf8)
        for _ in 0..<2 {
            _ = try await harness.sandbox.captureInSandbox(
                owner: id, mailFrom: "app@example.com", recipients: ["user@example.org"], clientIP: "192.0.2.1",
                raw: raw, authResults: nil)
        }
        let sandbox = try #require(try await harness.sandbox.sandboxAddress(proUserID: id))
        page = await browser.send(.GET, Self.dashboard)
        #expect(Self.element("sandbox-captures", in: page.text) == "2")
        #expect(page.text.contains("href=\"/inbox/m/\(PercentEncoding.encode(sandbox))\""))
        let home = await browser.send(.GET, "/inbox")
        #expect(home.text.contains(">Sandbox</a>"))
        #expect(!home.text.contains(">\(sandbox)</a>"))
        #expect(home.text.contains(">one<wbr>@pro.<wbr>localhost</a>"))
    }

    @Test("a flash's fields and its notice's kind survive its encoding whatever they hold, and nothing else decodes")
    func flashEncoding() {
        for kind in PageNotice.Kind.allCases {
            let flash = WebInboxFlash(
                PageNotice("Added x.\nf1 e=\"<&>\"", kind), token: "tm_pro_abc", webhookSecret: "whsec_1")
            #expect(WebInboxFlash(encoded: flash.encoded) == flash)
        }
        #expect(WebInboxFlash(encoded: WebInboxFlash().encoded) == WebInboxFlash())
        #expect(WebInboxFlash(encoded: Array("x".utf8)) == nil)
        #expect(WebInboxFlash(encoded: Array("f12".utf8)) == nil)
    }
}
