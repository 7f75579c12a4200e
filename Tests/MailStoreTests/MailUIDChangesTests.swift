import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// IMAP's look after a change read from the change log (issue 84): applied to the look before it, what the log says
/// changed gives the same mailbox as reading it whole, whatever changed; and where the log cannot say, nothing.
@Suite("Mail store: a mailbox's changes since a look", .serialized, .timeLimit(.minutes(5)))
struct MailUIDChangesTests {
    static let address = "changes@mail.localhost"
    static var recipient: [MailStore.Recipient] { [.init(address: address, quota: 100_000_000)] }

    static func entry(_ uid: UInt32, _ id: String, _ keywords: Set<String> = []) -> MailUIDEntry {
        MailUIDEntry(uid: uid, id: id, keywords: keywords, size: 10, receivedAt: 1)
    }

    @Test("applied: the touched taken out, those there now put back at their UID's place")
    func applied() {
        let before = [Self.entry(1, "a"), Self.entry(2, "b"), Self.entry(4, "c"), Self.entry(5, "d")]
        let changes = MailUIDChanges(
            mailbox: MailUIDMailbox(uidValidity: 7, uidNext: 9),
            touched: ["b", "c", "x", "y"],
            entries: [Self.entry(2, "b", ["$seen"]), Self.entry(6, "c"), Self.entry(8, "y")])
        #expect(changes.applied(to: before).map(\.uid) == [1, 2, 5, 6, 8])
        #expect(changes.applied(to: before).map(\.id) == ["a", "b", "d", "c", "y"])
        #expect(changes.applied(to: before)[1].keywords == ["$seen"])
        let nothing = MailUIDChanges(mailbox: MailUIDMailbox(uidValidity: 7, uidNext: 6), touched: [], entries: [])
        #expect(nothing.applied(to: before) == before)
        let allGone = MailUIDChanges(
            mailbox: MailUIDMailbox(uidValidity: 7, uidNext: 6), touched: ["a", "b", "c", "d"], entries: [])
        #expect(allGone.applied(to: before).isEmpty)
    }

    @Test("after each kind of change, the look before with the log's changes is the mailbox read whole", arguments: StorageBackend.allCases)
    func sameAsWhole(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        var ids: [String] = []
        for index in 0..<4 {
            ids += try await store.deliver(
                MailStoreTests.message("m\(index)"), to: Self.recipient, folder: .inbox, now: 100 + Int64(index))
        }
        let since = try await store.state(address: Self.address)
        let look = try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 1)

        func expectSame(_ what: Comment, atMost: Int = 100) async throws {
            let state = try await store.state(address: Self.address)
            let whole = try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 1)
            let changes = try #require(
                try await store.uidChanges(address: Self.address, folder: .inbox, since: since, to: state, atMost: atMost),
                what)
            #expect(changes.applied(to: look.entries) == whole.entries, what)
            #expect(changes.mailbox == whole.mailbox, what)
        }
        try await expectSame("nothing changed")
        let folder = try await store.createFolder(address: Self.address, path: ["Elsewhere"], now: 2)
        _ = try await store.deliver(MailStoreTests.message("sent"), to: Self.recipient, folder: .sent, now: 200)
        let elsewhere = try #require(
            try await store.uidChanges(
                address: Self.address, folder: .inbox, since: since, to: try await store.state(address: Self.address),
                atMost: 100))
        #expect(elsewhere.touched.isEmpty, "a folder made and mail to Sent touch no message of INBOX")
        try await expectSame("a folder made, mail to Sent")
        _ = try await store.setKeywords(address: Self.address, [(ids[1], ["$flagged", "$seen"])])
        try await expectSame("a message flagged")
        _ = try await store.move(address: Self.address, ids: [ids[0]], to: folder)
        try await expectSame("a message moved out")
        _ = try await store.move(address: Self.address, ids: [ids[2]], to: .inbox)
        try await expectSame("a message renumbered in place")
        #expect(try await store.delete(address: Self.address, ids: [ids[3]]) == 1)
        _ = try await store.deliver(MailStoreTests.message("new"), to: Self.recipient, folder: .inbox, now: 300)
        try await expectSame("one deleted, one delivered")

        let state = try await store.state(address: Self.address)
        #expect(
            try await store.uidChanges(address: Self.address, folder: .inbox, since: since, to: state, atMost: 2) == nil,
            "more changes than asked for: read it whole")
        try await store.renameFolder(address: Self.address, folder, name: "Renamed", parent: nil)
        let renamed = try await store.state(address: Self.address)
        #expect(
            try await store.uidChanges(address: Self.address, folder: folder, since: state, to: renamed, atMost: 100)
                == nil, "the folder itself renamed: read it whole")
        _ = try await db.database.write { try MailStore.trimChanges($0, keep: 1) }
        #expect(
            try await store.uidChanges(address: Self.address, folder: .inbox, since: since, to: renamed, atMost: 100)
                == nil, "the log trimmed: read it whole")
    }
}
