import ClientAddress
import HTTP1
import JSON
import MIME
import MailStore
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Testing

@testable import WebInbox

/// Owners write as their inboxes (through JMAP, over the harness's real JMAP service), and nobody else; a Pro user's
/// sandbox captures show their SPF, DKIM and DMARC verdicts.
@Suite("Web inbox: compose, reply and sandbox verdicts", .serialized)
struct WebInboxComposeTests {
    /// Two owners, Ada (signed in, inbox `ada-inbox`) and Bob (inbox `bob-inbox`, another agent on this server).
    static func owners(_ backend: StorageBackend) async throws -> (WebInboxHarness, Browser, ada: String, bob: String) {
        let harness = try WebInboxHarness(backend)
        let (browser, ada) = try await harness.owner("ada@example.com", inbox: "ada-inbox")
        let (_, bob) = try await harness.owner("bob@example.com", inbox: "bob-inbox")
        return (harness, browser, ada, bob)
    }

    static func path(_ mailbox: String) -> String { "/inbox/m/" + PercentEncoding.encode(mailbox) }

    /// The messages of `address` in `folder`, newest first.
    static func messages(_ harness: WebInboxHarness, _ address: String, in folder: MailFolder) async throws
        -> [MailMessageRecord]
    {
        let (ids, _) = try await harness.mail.query(
            address: address, filter: .inFolder(folder), sort: [], position: 0, limit: 50)
        let found = try await harness.mail.messages(address: address, ids: ids)
        return ids.compactMap { found[$0] }
    }

    /// Posts the compose form of `mailbox` with the page's CSRF token and `fields`.
    static func send(_ browser: Browser, _ mailbox: String, _ fields: [String: String]) async throws -> HTTPResponse {
        let form = await browser.send(.GET, path(mailbox) + "/compose")
        let csrf = try #require(Browser.csrf(in: form))
        return await browser.send(
            .POST, path(mailbox) + "/compose", form: fields.merging(["csrf_token": csrf]) { given, _ in given })
    }

    @Test(
        "an owner's reply reaches the other local agent, threaded under the original, and lands in Sent, read",
        arguments: StorageBackend.allCases)
    func replyArrives(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, bob) = try await Self.owners(backend)
        let original = try await harness.deliver(
            """
            From: Bob <\(bob)>
            To: \(ada)
            Subject: Question
            Message-ID: <q1@example.com>
            References: <q0@example.com>
            Content-Type: text/plain; charset=utf-8

            Can you confirm?
            Thanks
            """, to: ada)
        let message = await browser.send(.GET, Self.path(ada) + "/" + original)
        #expect(message.text.contains("<a id=\"reply\" href=\"\(Self.path(ada))/\(original)/reply\">"))

        let form = await browser.send(.GET, Self.path(ada) + "/" + original + "/reply")
        #expect(form.status == .ok)
        #expect(form.text.contains("id=\"compose-form\""))
        #expect(form.text.contains("name=\"to\" type=\"text\"") && form.text.contains("value=\"\(bob)\""))
        #expect(form.text.contains("value=\"Re: Question\""))
        #expect(form.text.contains("wrote:\n&gt; Can you confirm?\n&gt; Thanks"))
        #expect(form.text.contains("name=\"original\" value=\"\(original)\""))

        let csrf = try #require(Browser.csrf(in: form))
        let sent = await browser.send(
            .POST, Self.path(ada) + "/compose",
            form: [
                "csrf_token": csrf, "to": bob, "subject": "Re: Question", "body": "Confirmed.", "original": original,
            ])
        #expect(sent.status == .seeOther)
        let location = try #require(sent.headers["Location"])
        #expect(location == Self.path(ada) + "?folder=sent&notice=sent")
        let list = await browser.send(.GET, location)
        #expect(
            list.text.contains(
                "<p class=\"flash success\" role=\"status\" id=\"notice\" data-notice=\"success\">Sent.</p>"))
        #expect(list.text.contains(">Re: Question</a>"))

        let received = try #require(try await Self.messages(harness, bob, in: .inbox).first)
        #expect(received.summary.subject == "Re: Question")
        #expect(received.summary.from.map(\.email) == [ada])
        #expect(received.inReplyTo == ["q1@example.com"])
        #expect(received.references == ["q0@example.com", "q1@example.com"])
        #expect(received.textBody?.hasPrefix("Confirmed.") == true)
        let filed = try await Self.messages(harness, ada, in: .sent)
        #expect(filed.map(\.summary.subject) == ["Re: Question"])
        #expect(filed.first?.summary.isRead == true)
        #expect(filed.first?.summary.allKeywords.contains("$draft") == false)
        #expect(try await Self.messages(harness, ada, in: .drafts).isEmpty)
        // A sent message opens like any other.
        let opened = await browser.send(.GET, Self.path(ada) + "/" + (filed.first?.summary.id ?? ""))
        #expect(opened.status == .ok)
        #expect(opened.text.contains("Confirmed."))
        // A reply to what the inbox sent goes to its recipients again, not to the inbox itself.
        let again = await browser.send(.GET, Self.path(ada) + "/" + (filed.first?.summary.id ?? "") + "/reply")
        #expect(again.text.contains("name=\"to\" type=\"text\"") && again.text.contains("value=\"\(bob)\""))
        #expect(again.text.contains("value=\"Re: Question\""))
    }

    @Test(
        "a reply's subject gets one Re:, its To the Reply-To, its body the text quoted; a To field splits",
        arguments: StorageBackend.allCases)
    func replyForm(_ backend: StorageBackend) async throws {
        #expect(WebInboxComposeForm.replySubject("Question") == "Re: Question")
        #expect(WebInboxComposeForm.replySubject("Re: Question") == "Re: Question")
        #expect(WebInboxComposeForm.replySubject("RE: Question") == "RE: Question")
        #expect(WebInboxComposeForm.replySubject("") == "Re: ")
        #expect(
            try WebInboxComposeForm.addresses(" a@example.com, Bo <b@example.org>;c@example.net ,, ")
                == ["a@example.com", "b@example.org", "c@example.net"])
        #expect(try WebInboxComposeForm.addresses("\"Smith; Jo\" <jo@example.com>") == ["jo@example.com"])
        #expect(try WebInboxComposeForm.addresses(" , ").isEmpty)
        // Read as the sender check reads a header: one of two addresses is no address, nor is a group.
        for field in ["<a@example.com> <b@example.org>", "<a@example.com> \"<b@example.org>\"", "team: a@example.com;"] {
            #expect(throws: WebInboxSendRefusal(.invalidAddress)) { try WebInboxComposeForm.addresses(field) }
        }
        let harness = try WebInboxHarness(backend)
        let id = try await harness.deliver(
            """
            From: Ada <ada@example.com>
            Reply-To: team@example.com
            To: me@agents.localhost
            Subject: RE: Plans
            Date: Thu, 26 Nov 2026 01:02:03 +0000
            Content-Type: text/plain; charset=utf-8

            One

            Two

            """, to: "me@agents.localhost")
        let record = try #require(try await harness.mail.message(address: "me@agents.localhost", id: id))
        let form = WebInboxComposeForm.reply(to: record, in: "me@agents.localhost")
        #expect(form.to == "team@example.com")
        #expect(form.subject == "RE: Plans")
        #expect(form.body == "\n\nOn 2026-11-26 01:02:03Z, Ada <ada@example.com> wrote:\n> One\n>\n> Two")
        #expect(form.original == id)
        #expect(WebInboxComposeForm.thread(of: record) == ([], []))
    }

    @Test("the notice after a send names the least good outcome, and only a known code shows one")
    func notices() {
        func code(
            delivered: Int = 0, queued: Int = 0, kept: Int = 0, undelivered: Int = 0, reason: HeldReason = .needsOwner
        ) -> String {
            var report = WebInboxSendReport()
            report.delivered = Array(repeating: "a@agents.localhost", count: delivered)
            report.queued = Array(repeating: "b@example.org", count: queued)
            report.kept = Array(repeating: "c@example.org", count: kept)
            report.heldReason = kept > 0 ? reason : nil
            report.undelivered = Array(repeating: "d@agents.localhost", count: undelivered)
            return WebInboxComposeForm.noticeCode(report)
        }
        #expect(code(delivered: 2) == "sent")
        #expect(code(delivered: 1, queued: 1) == "queued")
        #expect(code(kept: 1) == "held.needs_owner")
        #expect(code(delivered: 1, kept: 1, reason: .outboundOff) == "partly-held.outbound_off")
        #expect(code(undelivered: 1) == "undelivered")
        #expect(code(queued: 1, undelivered: 1) == "partly-undelivered")
        for known in [
            "sent", "queued", "held.outbound_off", "partly-held.needs_owner", "held.awaiting_approval", "undelivered",
            "partly-undelivered",
        ] {
            #expect(WebInboxComposeForm.notice(known) != nil, "\(known)")
        }
        // A held notice says why in the words an agent or a person acts on, never "does not send".
        #expect(
            WebInboxComposeForm.notice("held.needs_owner")?.text.contains(
                "this inbox needs an owner before it can write outside") == true)
        #expect(
            WebInboxComposeForm.notice("partly-held.outbound_off")?.text.contains(
                "outbound delivery is off on this server") == true)
        // Only what went as asked is a success: held, partly delivered or refused is not (issue 68).
        #expect(WebInboxComposeForm.notice("sent")?.kind == .success)
        #expect(WebInboxComposeForm.notice("queued")?.kind == .success)
        #expect(WebInboxComposeForm.notice("held.outbound_off")?.kind == .warning)
        #expect(WebInboxComposeForm.notice("partly-held.needs_owner")?.kind == .warning)
        #expect(WebInboxComposeForm.notice("still-held.outbound_off")?.kind == .warning)
        #expect(WebInboxComposeForm.notice("release-refused")?.kind == .warning)
        #expect(WebInboxComposeForm.notice("partly-undelivered")?.kind == .warning)
        #expect(WebInboxComposeForm.notice("undelivered")?.kind == .error)
        #expect(WebInboxComposeForm.notice("held.nonsense") == nil)
        #expect(WebInboxComposeForm.notice("kept") == nil)
        #expect(WebInboxComposeForm.notice("<script>") == nil)
        #expect(WebInboxComposeForm.notice(nil) == nil)
    }

    @Test(
        "a#compose writes a new message; a recipient on another domain is queued and the notice says so",
        arguments: StorageBackend.allCases)
    func composeQueued(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, _) = try await Self.owners(backend)
        let list = await browser.send(.GET, Self.path(ada))
        #expect(list.text.contains("<a id=\"compose\" href=\"\(Self.path(ada))/compose\">"))
        let form = await browser.send(.GET, Self.path(ada) + "/compose")
        #expect(form.status == .ok)
        for field in ["<label for=\"compose-to\">", "<label for=\"compose-subject\">", "<label for=\"compose-body\">"] {
            #expect(form.text.contains(field))
        }
        #expect(!form.text.contains("name=\"original\""))
        let sent = try await Self.send(
            browser, ada, ["to": "Carol <carol@example.org>", "subject": "Hello", "body": "Hi Carol."])
        #expect(sent.headers["Location"] == Self.path(ada) + "?folder=sent&notice=queued")
        let page = await browser.send(.GET, try #require(sent.headers["Location"]))
        #expect(page.text.contains("id=\"notice\" data-notice=\"success\">Queued"))
        let sentTo = try await Self.messages(harness, ada, in: .sent).map(\.to)
        #expect(sentTo == [[MailAddress(name: nil, email: "carol@example.org")]])
    }

    @Test(
        "held mail says why on the owner's inbox page, and its Release button goes through a new message's checks",
        arguments: StorageBackend.allCases)
    func heldAndReleased(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, bob) = try await Self.owners(backend)
        harness.outsideSender.value = .notAccountable
        let sent = try await Self.send(browser, ada, ["to": "carol@example.org", "subject": "Held", "body": "Hi."])
        #expect(sent.headers["Location"] == Self.path(ada) + "?folder=sent&notice=held.needs_owner")
        let page = await browser.send(.GET, try #require(sent.headers["Location"]))
        #expect(page.text.contains("Held in this server&#39;s outbox, not sent: this inbox needs an owner before it"))
        #expect(!page.text.contains("does not leave"))
        let id = try #require(try await harness.mail.outbox().first?.id)
        #expect(page.text.contains("id=\"held-\(id)\"") && page.text.contains("id=\"release-\(id)\""))
        #expect(page.text.contains("held: this inbox needs an owner before it can write outside"))

        func release(_ mailbox: String) async throws -> HTTPResponse {
            let list = await browser.send(.GET, Self.path(ada))
            let csrf = try #require(Browser.csrf(in: list))
            return await browser.send(.POST, Self.path(mailbox) + "/release", form: ["csrf_token": csrf, "id": id])
        }
        // While the reason holds, a release leaves it held and says why.
        #expect(try await release(ada).headers["Location"] == Self.path(ada) + "?notice=still-held.needs_owner")
        #expect(try await harness.mail.outbox().count == 1)
        // Bob's inbox is another owner's: ada's session reaches nothing there.
        #expect(try await release(bob).status == .notFound)
        // Once the sender may write outside, the release queues it and the held section is gone.
        harness.outsideSender.value = .allowed(holder: nil)
        let released = try await release(ada)
        #expect(released.headers["Location"] == Self.path(ada) + "?notice=released")
        let after = await browser.send(.GET, try #require(released.headers["Location"]))
        #expect(after.text.contains("id=\"notice\" data-notice=\"success\">Released"))
        #expect(!after.text.contains("id=\"held\""))
        #expect(try await harness.mail.outbox().isEmpty)
        #expect(try await OutboundQueue(database: harness.test.database).list().count == 1)
    }

    @Test(
        "a refused send shows #error in plain words, keeps what was written and leaves no draft",
        arguments: StorageBackend.allCases)
    func refusedSend(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, _) = try await Self.owners(backend)
        let cases: [(String, String)] = [
            ("nobody@agents.localhost", "There is no such mailbox here: nobody@agents.localhost. Nothing was sent."),
            ("not an address", "An address in To is not an address"),
            (" , ", "Write at least one address in To."),
        ]
        for (to, sentence) in cases {
            let page = try await Self.send(
                browser, ada, ["to": to, "subject": "Kept <subject>", "body": "Kept body & all"])
            #expect(page.status == .unprocessableEntity, "\(to)")
            #expect(
                page.text.contains("<p class=\"flash error\" role=\"alert\" id=\"error\" data-notice=\"error\">" + sentence),
                "\(to)")
            #expect(page.text.contains("value=\"\(to)\""), "\(to)")
            #expect(page.text.contains("value=\"Kept &lt;subject&gt;\""), "\(to)")
            #expect(page.text.contains("Kept body &amp; all</textarea>"), "\(to)")
            #expect(!page.text.contains("invalidRecipients") && !page.text.contains("invalidProperties"), "\(to)")
        }
        for folder in [MailFolder.drafts, .sent] {
            #expect(try await Self.messages(harness, ada, in: folder).isEmpty, "\(folder)")
        }
    }

    @Test(
        "past the per-sender limit on other domains, sending is refused in #error and nothing is sent",
        arguments: StorageBackend.allCases)
    func limitReached(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, _) = try await Self.owners(backend)
        for index in 0..<WebInboxHarness.outsideLimit {
            let sent = try await Self.send(browser, ada, ["to": "r\(index)@example.org", "subject": "n", "body": "b"])
            #expect(sent.status == .seeOther)
        }
        let refused = try await Self.send(browser, ada, ["to": "late@example.org", "subject": "Late", "body": "b"])
        #expect(refused.status == .unprocessableEntity)
        #expect(refused.text.contains("id=\"error\" data-notice=\"error\">This inbox has sent to as many addresses on other domains"))
        #expect(try await Self.messages(harness, ada, in: .sent).count == WebInboxHarness.outsideLimit)
        #expect(try await Self.messages(harness, ada, in: .drafts).isEmpty)
    }

    @Test(
        "only owners compose: a Mail.td account, a Pro user and another owner's inbox get the same 404",
        arguments: StorageBackend.allCases)
    func onlyOwners(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, bob) = try await Self.owners(backend)
        let bobMessage = try await harness.deliver(WebInboxHarness.plain(subject: "For Bob"), to: bob)
        let csrf = try #require(Browser.csrf(in: await browser.send(.GET, Self.path(ada))))
        for (method, path) in [
            (HTTPMethod.GET, Self.path(bob) + "/compose"), (.GET, Self.path(bob) + "/" + bobMessage + "/reply"),
            (.POST, Self.path(bob) + "/compose"),
        ] {
            let answer = await browser.send(method, path, form: ["csrf_token": csrf, "to": ada, "body": "x"])
            #expect(answer.status == .notFound, "\(path)")
        }

        try await harness.account("reader@mail.localhost", password: "secret-one")
        let reader = harness.browser()
        #expect(
            try await reader.signIn(["kind": "account", "address": "reader@mail.localhost", "password": "secret-one"])
                .status == .seeOther)
        let pro = try await harness.proLogin("pro@example.com")
        try await harness.account("pro-box@pro.localhost", bearer: pro.jwt)
        let proBrowser = harness.browser()
        #expect(
            try await proBrowser.signIn(["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
                .status == .seeOther)
        for (person, mailbox) in [(reader, "reader@mail.localhost"), (proBrowser, "pro-box@pro.localhost")] {
            let id = try await harness.deliver(WebInboxHarness.plain(subject: "Hi"), to: mailbox)
            let list = await person.send(.GET, Self.path(mailbox))
            #expect(list.status == .ok)
            #expect(!list.text.contains("id=\"compose\""))
            let message = await person.send(.GET, Self.path(mailbox) + "/" + id)
            #expect(message.status == .ok)
            #expect(!message.text.contains("id=\"reply\""))
            let token = try #require(Browser.csrf(in: message))
            #expect(await person.send(.GET, Self.path(mailbox) + "/compose").status == .notFound)
            #expect(await person.send(.GET, Self.path(mailbox) + "/" + id + "/reply").status == .notFound)
            let post = await person.send(
                .POST, Self.path(mailbox) + "/compose", form: ["csrf_token": token, "to": ada, "body": "x"])
            #expect(post.status == .notFound)
        }
        #expect(try await Self.messages(harness, ada, in: .inbox).isEmpty)
    }

    @Test("a line break in the subject or To adds no header and no recipient", arguments: StorageBackend.allCases)
    func noHeaderInjection(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, bob) = try await Self.owners(backend)
        let injected = "Hi\r\nBcc: carol@example.org"
        let sent = try await Self.send(
            browser, ada, ["to": bob + "\r\nBcc: carol@example.org", "subject": injected, "body": "b"])
        // The To field splits on commas only: the line break leaves one unreadable address, refused.
        #expect(sent.status == .unprocessableEntity)
        let subject = try await Self.send(browser, ada, ["to": bob, "subject": injected, "body": "b"])
        #expect(subject.status == .seeOther)
        let filed = try #require(try await Self.messages(harness, ada, in: .sent).first)
        #expect(filed.bcc.isEmpty && filed.to.map(\.email) == [bob])
        let bytes = try #require(try await harness.mail.raw(address: ada, id: filed.summary.id))
        let raw = String(decoding: bytes, as: UTF8.self)
        #expect(!raw.contains("\r\nBcc:"))
        #expect(try await Self.messages(harness, bob, in: .inbox).count == 1)
    }

    @Test(
        "the JMAP sender acts only as an inbox the owner holds now (any case), never another owner's",
        arguments: StorageBackend.allCases)
    func senderOwnership(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let sender = try #require(harness.service.sender)
        let ada = try await harness.owners.owners.create(email: "ada@example.com", password: "owner-password-1")
        let bob = try await harness.owners.owners.create(email: "bob@example.com", password: "owner-password-1")
        let (adaInbox, _) = try await harness.ownedInboxes.createInbox(username: "ada-inbox", ownerID: ada.id)
        let (bobInbox, _) = try await harness.ownedInboxes.createInbox(username: "bob-inbox", ownerID: bob.id)
        let draft = WebInboxDraft(to: [bobInbox.address], subject: "Hi", body: "b")
        let client = ClientAddressKey(peer: "192.0.2.1")
        let report = try await sender.send(
            draft, from: adaInbox.address.uppercased(), ownerID: ada.id, client: client, requestID: "t")
        #expect(report.delivered == [bobInbox.address])
        await #expect(throws: WebInboxSendRefusal(.notAllowed)) {
            try await sender.send(draft, from: bobInbox.address, ownerID: ada.id, client: client, requestID: "t")
        }
        _ = try await harness.ownedInboxes.unlink(accountID: adaInbox.accountID, ownerID: ada.id)
        await #expect(throws: WebInboxSendRefusal(.notAllowed)) {
            try await sender.send(draft, from: adaInbox.address, ownerID: ada.id, client: client, requestID: "t")
        }
        #expect(try await Self.messages(harness, bobInbox.address, in: .inbox).count == 1)
    }

    @Test(
        "a compose post without the session's CSRF token is a 403 and sends nothing",
        arguments: StorageBackend.allCases)
    func csrfRefused(_ backend: StorageBackend) async throws {
        let (harness, browser, ada, bob) = try await Self.owners(backend)
        for token in [nil, "forged"] {
            var fields = ["to": bob, "subject": "Forged", "body": "x"]
            fields["csrf_token"] = token
            let answer = await browser.send(.POST, Self.path(ada) + "/compose", form: fields)
            #expect(answer.status == .forbidden)
        }
        #expect(try await Self.messages(harness, bob, in: .inbox).isEmpty)
        #expect(try await Self.messages(harness, ada, in: .sent).isEmpty)
    }

    @Test(
        "a sandbox capture shows its SPF, DKIM and DMARC verdicts; unchecked ones say so; other messages none",
        arguments: StorageBackend.allCases)
    func authResults(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        try await harness.account("pro-box@pro.localhost", bearer: pro.jwt)
        func capture(_ subject: String, _ results: JSONValue?) async throws -> String {
            let raw = Array("From: app@example.org\r\nTo: user@example.com\r\nSubject: \(subject)\r\n\r\nHi.\r\n".utf8)
            return try await harness.sandbox.captureInSandbox(
                owner: pro.id, mailFrom: "app@example.org", recipients: ["user@example.com"], clientIP: "192.0.2.1",
                raw: raw, authResults: results)
        }
        let checked = try await capture(
            "Checked",
            .object([
                ("spf", "pass"), ("dkim", "fail"), ("dmarc", "fail"), ("spf_domain", "example.org"),
                ("dkim_signatures", [.object([("domain", "<b>example.org</b>"), ("result", "fail")])]),
                ("dmarc_policy", "reject"), ("from_domain", "example.org"),
            ]))
        let unchecked = try await capture(
            "Unchecked",
            .object([
                ("spf", "none"), ("dkim", "none"), ("dmarc", "none"), ("spf_domain", ""), ("dkim_signatures", []),
                ("dmarc_policy", .null), ("from_domain", ""),
            ]))
        let unrecorded = try await capture("Unrecorded", nil)
        let sandbox = try #require(try await harness.sandbox.sandboxAddress(proUserID: pro.id))
        let browser = harness.browser()
        #expect(
            try await browser.signIn(["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
                .status == .seeOther)

        let shown = await browser.send(.GET, Self.path(sandbox) + "/" + checked)
        #expect(shown.status == .ok)
        #expect(shown.text.contains("id=\"auth-results\""))
        #expect(shown.text.contains("<dd id=\"auth-spf\">pass <span class=\"hint\">(example.org)</span></dd>"))
        #expect(shown.text.contains("<dd id=\"auth-dkim\">fail <span class=\"hint\">(&lt;b&gt;example.org&lt;/b&gt;)"))
        #expect(shown.text.contains("<dd id=\"auth-dmarc\">fail <span class=\"hint\">(example.org)</span></dd>"))
        let off = await browser.send(.GET, Self.path(sandbox) + "/" + unchecked)
        for check in ["spf", "dkim", "dmarc"] {
            #expect(off.text.contains("<dd id=\"auth-\(check)\">not checked</dd>"), "\(check)")
        }
        #expect(!(await browser.send(.GET, Self.path(sandbox) + "/" + unrecorded)).text.contains("auth-results"))
        let account = try await harness.deliver(
            WebInboxHarness.plain(subject: "Account mail"), to: "pro-box@pro.localhost")
        let accountPage = await browser.send(.GET, Self.path("pro-box@pro.localhost") + "/" + account)
        #expect(accountPage.status == .ok)
        #expect(!accountPage.text.contains("auth-results"))
    }
}
