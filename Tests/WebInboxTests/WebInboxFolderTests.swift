import HTTP1
import PosternTestSupport
import Testing

@testable import WebInbox

/// The web inbox shows every folder of the mailbox (decision 35): the six fixed ones and those made through any door,
/// each a link that lists its messages.
@Suite("Web inbox: folders", .serialized)
struct WebInboxFolderTests {
    @Test("the list links every folder by its path, and a made folder's link lists the mail moved into it", arguments: StorageBackend.allCases)
    func folders(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await WebInboxPagesTests.signedIn(backend)
        let address = "reader@mail.localhost"
        let id = try await harness.deliver(WebInboxHarness.plain(subject: "Filed away"), to: address)
        let year = try await harness.mail.createFolder(address: address, path: ["Projects", "2026"], now: 1_800_000_000)
        _ = try await harness.mail.move(address: address, ids: [id], to: year)

        let list = await browser.send(.GET, WebInboxPagesTests.mailbox)
        #expect(list.status == .ok)
        for fixed in ["inbox", "drafts", "sent", "trash", "junk", "archive"] {
            #expect(list.text.contains("id=\"folder-\(fixed)\""), "\(fixed)")
        }
        #expect(list.text.contains("id=\"folder-\(year.rawValue)\""))
        #expect(list.text.contains("Projects / 2026</a>"))
        #expect(!list.text.contains("Filed away"), "moved out of the inbox")
        let filed = await browser.send(.GET, WebInboxPagesTests.mailbox + "?folder=" + year.rawValue)
        #expect(filed.status == .ok)
        #expect(filed.text.contains("Filed away"))
        #expect(filed.text.contains("aria-current=\"page\">Projects / 2026"))
    }

    @Test("a message's move form lists the other folders (names escaped) and moves it with the CSRF token; a forged token or unknown folder moves nothing", arguments: StorageBackend.allCases)
    func moving(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await WebInboxPagesTests.signedIn(backend)
        let address = "reader@mail.localhost"
        let id = try await harness.deliver(WebInboxHarness.plain(subject: "Move me"), to: address)
        let hostile = try await harness.mail.createFolder(address: address, path: ["<b>Bills & \"tax\""], now: 1_800_000_000)
        let path = WebInboxPagesTests.mailbox + "/" + id

        let page = await browser.send(.GET, path)
        #expect(page.status == .ok)
        #expect(page.text.contains("id=\"move-form\""))
        #expect(page.text.contains("<option value=\"\(hostile.rawValue)\">&lt;b&gt;Bills &amp; &quot;tax&quot;</option>"))
        #expect(page.text.contains("<option value=\"archive\">Archive</option>"))
        #expect(!page.text.contains("<option value=\"inbox\">"), "not the folder it is in")
        let csrf = try #require(Browser.csrf(in: page))

        #expect(await browser.send(.POST, path + "/move", form: ["folder": "archive"]).status == .forbidden)
        #expect(
            await browser.send(.POST, path + "/move", form: ["folder": "archive", "csrf_token": "forged"]).status
                == .forbidden)
        #expect(
            await browser.send(.POST, path + "/move", form: ["folder": "no-such-folder", "csrf_token": csrf]).status
                == .badRequest)
        #expect(try await harness.mail.message(address: address, id: id)?.summary.folder == .inbox, "nothing moved")

        let moved = await browser.send(.POST, path + "/move", form: ["folder": hostile.rawValue, "csrf_token": csrf])
        #expect(moved.status == .seeOther)
        #expect(moved.headers["Location"] == WebInboxPagesTests.mailbox + "?folder=inbox", "back to the folder it left")
        #expect(try await harness.mail.message(address: address, id: id)?.summary.folder == hostile)
        let filed = await browser.send(.GET, WebInboxPagesTests.mailbox + "?folder=" + hostile.rawValue)
        #expect(filed.text.contains("Move me"))
        #expect(
            await browser.send(.POST, WebInboxPagesTests.mailbox + "/no-such-id/move", form: ["folder": "archive", "csrf_token": csrf])
                .status == .notFound)
    }
}
