import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// Folders in the store (decision 35, migration 0076) on both backends: making with missing parents, renaming with
/// children and subscriptions, deleting with or without messages, moving and copying between any two, UIDVALIDITY
/// per folder, and each change in the change log.
@Suite("Mail store: folders", .serialized, .timeLimit(.minutes(5)))
struct MailFolderStoreTests {
    static let address = "folders@mail.localhost"
    static var recipient: [MailStore.Recipient] { [.init(address: address, quota: 100_000_000)] }

    @Test("create makes missing parents, refuses a duplicate and a bad name; rename carries children and subscriptions", arguments: StorageBackend.allCases)
    func createAndRename(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let a = Self.address
        let deep = try await store.createFolder(address: a, path: ["Projects", "2026", "Q4"], now: 1_800_000_000)
        var tree = try await store.folders(address: a)
        #expect(tree.path(of: deep) == ["Projects", "2026", "Q4"])
        #expect(tree.entries.count == 9)
        await #expect(throws: MailFolderError.exists) {
            try await store.createFolder(address: a, path: ["Projects", "2026"], now: 1)
        }
        await #expect(throws: MailFolderError.exists) { try await store.createFolder(address: a, path: ["inbox"], now: 1) }
        await #expect(throws: MailFolderError.name) { try await store.createFolder(address: a, path: ["a/b"], now: 1) }
        let receipts = try await store.createFolder(address: a, name: "Receipts", parent: .archive, now: 2)
        #expect(try await store.folders(address: a).path(of: receipts) == ["Archive", "Receipts"])
        await #expect(throws: MailFolderError.noSuchFolder) {
            try await store.createFolder(address: a, name: "x", parent: MailFolder(rawValue: "missing"), now: 2)
        }

        try await store.setSubscribed(address: a, path: ["Projects", "2026", "Q4"], true)
        try await store.setSubscribed(address: a, path: ["Projects"], true)
        try await store.renameFolder(address: a, from: ["Projects"], to: ["Work", "Old projects"], now: 3)
        tree = try await store.folders(address: a)
        #expect(tree.path(of: deep) == ["Work", "Old projects", "2026", "Q4"], "children go with it, keys kept")
        #expect(tree.folder(at: ["Projects"]) == nil)
        #expect(try await store.subscriptions(address: a) == ["Work/Old projects", "Work/Old projects/2026/Q4"])

        await #expect(throws: MailFolderError.fixed) {
            try await store.renameFolder(address: a, from: ["INBOX"], to: ["Old"], now: 3)
        }
        await #expect(throws: MailFolderError.underItself) {
            try await store.renameFolder(address: a, from: ["Work"], to: ["Work", "Old projects", "Work"], now: 3)
        }
        await #expect(throws: MailFolderError.underItself) {
            try await store.renameFolder(address: a, from: ["Work"], to: ["Work", "new", "x"], now: 3)
        }
        await #expect(throws: MailFolderError.exists) {
            try await store.renameFolder(address: a, from: ["Work"], to: ["Trash"], now: 3)
        }
        let work = try #require(tree.folder(at: ["Work"]))
        try await store.renameFolder(address: a, work, name: "Job", parent: .archive)
        #expect(try await store.folders(address: a).path(of: deep) == ["Archive", "Job", "Old projects", "2026", "Q4"])
        await #expect(throws: MailFolderError.underItself) {
            try await store.renameFolder(address: a, work, name: "Loop", parent: deep)
        }
        #expect(try await store.folders(address: "other@mail.localhost").entries.count == 6, "folders are per address")
    }

    @Test("delete: fixed refused, children refused, messages refused or removed; a new folder of the name gets a new UIDVALIDITY", arguments: StorageBackend.allCases)
    func deleting(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let a = Self.address
        let parent = try await store.createFolder(address: a, path: ["P"], now: 1_800_000_000)
        let child = try await store.createFolder(address: a, path: ["P", "C"], now: 1_800_000_000)
        let ids = try await store.deliver(MailStoreTests.message("in child"), to: Self.recipient, folder: child, now: 5)
        let before = try await store.uidSnapshot(address: a, folder: child, now: 0)
        #expect(before.entries.map(\.uid) == [1])

        await #expect(throws: MailFolderError.fixed) { try await store.deleteFolder(address: a, .trash, removingMessages: true) }
        await #expect(throws: MailFolderError.hasChildren) { try await store.deleteFolder(address: a, parent, removingMessages: true) }
        await #expect(throws: MailFolderError.notEmpty) { try await store.deleteFolder(address: a, child, removingMessages: false) }
        #expect(try await store.deleteFolder(address: a, child, removingMessages: true) == 1)
        #expect(try await store.message(address: a, id: ids[0]) == nil, "its messages went with it")
        await #expect(throws: MailFolderError.noSuchFolder) {
            try await store.deliver(MailStoreTests.message("late"), to: Self.recipient, folder: child, now: 6)
        }
        let again = try await store.createFolder(address: a, path: ["P", "C"], now: 1_800_000_000)
        #expect(again != child)
        let after = try await store.uidSnapshot(address: a, folder: again, now: 0)
        #expect(after.mailbox.uidValidity > before.mailbox.uidValidity, "never the deleted folder's UIDVALIDITY")
        #expect(after.mailbox.uidNext == 1)
        try await store.deleteFolder(address: a, again, removingMessages: false)
        try await store.deleteFolder(address: a, parent, removingMessages: false)
        #expect(try await store.folders(address: a).entries.count == 6)
    }

    @Test("move and copy between any two folders take the destination's UIDs; a missing folder is refused", arguments: StorageBackend.allCases)
    func moving(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let a = Self.address
        let one = try await store.createFolder(address: a, path: ["One"], now: 1_800_000_000)
        let two = try await store.createFolder(address: a, path: ["Two"], now: 1_800_000_000)
        let ids = try await store.deliver(MailStoreTests.message("m"), to: Self.recipient, folder: .inbox, now: 5)
        #expect(try await store.move(address: a, ids: ids, to: one) == [ids[0]: 1])
        #expect(try await store.message(address: a, id: ids[0])?.summary.folder == one)
        let copies = try await store.copy(address: a, ids: ids, to: two, quota: 100_000_000)
        #expect(copies == [ids[0]: 1])
        #expect(try await store.move(address: a, ids: ids, to: .trash) == [ids[0]: 1])
        #expect(try await store.uidSnapshot(address: a, folder: two, now: 0).entries.count == 1)
        let missing = try #require(MailFolder(rawValue: "no-such-folder"))
        await #expect(throws: MailFolderError.noSuchFolder) { try await store.move(address: a, ids: ids, to: missing) }
        await #expect(throws: MailFolderError.noSuchFolder) {
            try await store.copy(address: a, ids: ids, to: missing, quota: 100_000_000)
        }
        await #expect(throws: MailFolderError.noSuchFolder) {
            try await store.update(address: a, id: ids[0], keywords: [], folder: missing)
        }
        let counts = try await store.folderCounts(address: a)
        #expect(counts[two]?.total == 1 && counts[.trash]?.total == 1 && counts[one] == nil)
    }

    @Test("each folder's making, renaming and deleting is in the change log; Mailbox and Email changes tell them apart", arguments: StorageBackend.allCases)
    func changeLog(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let a = Self.address
        let start = try await store.state(address: a)
        let made = try await store.createFolder(address: a, path: ["Kept"], now: 1_800_000_000)
        let gone = try await store.createFolder(address: a, path: ["Gone"], now: 1_800_000_000)
        let afterMaking = try await store.state(address: a)
        let ids = try await store.deliver(MailStoreTests.message("m"), to: Self.recipient, folder: made, now: 5)
        try await store.renameFolder(address: a, from: ["Kept"], to: ["Renamed"], now: 6)
        try await store.deleteFolder(address: a, gone, removingMessages: false)
        let (log, state) = try #require(try await store.changes(address: a, since: start))
        #expect(log.map(\.kind) == [.mailboxCreated, .mailboxCreated, .created, .mailboxUpdated, .mailboxDestroyed])
        #expect(log.map(\.messageID) == [made.rawValue, gone.rawValue, ids[0], made.rawValue, gone.rawValue])
        let mailboxes = MailChangeSet.mailboxes(log, since: start, state: state, maxChanges: 100)
        #expect(mailboxes.created == [made.rawValue] && mailboxes.destroyed == [] && mailboxes.updated == [])
        let later = try #require(try await store.changes(address: a, since: afterMaking))
        let since = MailChangeSet.mailboxes(later.log, since: afterMaking, state: later.state, maxChanges: 100)
        #expect(since.updated == [made.rawValue] && since.destroyed == [gone.rawValue])
        let emails = MailChangeSet.emails(log, since: start, state: state, maxChanges: 100)
        #expect(emails.created == ids && emails.updated.isEmpty && emails.destroyed.isEmpty)
    }

    @Test("subscribing and unsubscribing a made folder is its change in the log; no change, a fixed folder or a bare name writes none", arguments: StorageBackend.allCases)
    func subscriptionChanges(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let a = Self.address
        let folder = try await store.createFolder(address: a, path: ["News", "Daily"], now: 1_800_000_000)
        let start = try await store.state(address: a)
        try await store.setSubscribed(address: a, path: ["News", "Daily"], true)
        let subscribed = try await store.state(address: a)
        #expect(subscribed == start + 1)
        try await store.setSubscribed(address: a, path: ["News", "Daily"], true)
        try await store.setSubscribed(address: a, path: ["INBOX"], true)
        try await store.setSubscribed(address: a, path: ["Nowhere"], true)
        #expect(try await store.state(address: a) == subscribed, "nothing a folder shows changed")
        #expect(try await store.subscriptions(address: a) == ["News/Daily", "INBOX", "Nowhere"])
        try await store.setSubscribed(address: a, path: ["News", "Daily"], false)
        let (log, state) = try #require(try await store.changes(address: a, since: start))
        #expect(state == start + 2)
        #expect(log.map(\.kind) == [.mailboxUpdated, .mailboxUpdated])
        #expect(log.map(\.messageID) == [folder.rawValue, folder.rawValue])
        let set = MailChangeSet.mailboxes(log, since: start, state: state, maxChanges: 100)
        #expect(set.updated == [folder.rawValue] && set.created.isEmpty && set.destroyed.isEmpty)
        #expect(try await store.folders(address: a).path(of: folder) == ["News", "Daily"], "the name is unchanged")
    }
}
