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
}
