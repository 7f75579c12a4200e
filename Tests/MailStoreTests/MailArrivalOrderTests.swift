import MIME
import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// Two messages received in the same second must come back in the order they arrived: ids are random UUIDs, so a
/// tie on `received_at` broken by id alone gives the wrong order about half of the time.
@Suite("Mail store: arrival order within one second", .serialized)
struct MailArrivalOrderTests {
    /// Pairs delivered with one clock reading each; many, so that a random tie-break cannot pass by luck.
    static let pairs = 40

    @Test("the newest-first page, the oldest unread and Email/query by receivedAt agree with arrival", arguments: StorageBackend.allCases)
    func sameSecondPairs(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        for pair in 0..<Self.pairs {
            let address = "pair\(pair)@mail.localhost"
            let now = Int64(1_700_000_000 + pair)
            let first = try await store.deliver(
                MailStoreTests.message("first"), to: [.init(address: address, quota: 10_000)], folder: .inbox, now: now)
            let second = try await store.deliver(
                MailStoreTests.message("second"), to: [.init(address: address, quota: 10_000)], folder: .inbox, now: now)
            let newestFirst = try await store.page(address: address, page: 1).map(\.id)
            #expect(newestFirst == second + first, "pair \(pair): the list is newest first")
            #expect(try await store.oldestUnread(address: address)?.id == first[0], "pair \(pair): oldest unread")
            let ascending = try await store.query(
                address: address, filter: .inFolder(.inbox), sort: [MailSort(property: .receivedAt, ascending: true)],
                position: 0, limit: 10)
            #expect(ascending.ids == first + second, "pair \(pair): receivedAt ascending")
            let unsorted = try await store.query(
                address: address, filter: .inFolder(.inbox), sort: [], position: 0, limit: 10)
            #expect(unsorted.ids == second + first, "pair \(pair): the default order is newest first")
        }
    }

    @Test("a message deleted at the top of the counter leaves the order of the rest intact", arguments: StorageBackend.allCases)
    func afterDeletion(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        for round in 0..<Self.pairs {
            let address = "deleted\(round)@mail.localhost"
            let recipient = [MailStore.Recipient(address: address, quota: 10_000)]
            let a = try await store.deliver(MailStoreTests.message("a"), to: recipient, folder: .inbox, now: 5)
            let b = try await store.deliver(MailStoreTests.message("b"), to: recipient, folder: .inbox, now: 5)
            #expect(try await store.delete(address: address, id: b[0]))
            let c = try await store.deliver(MailStoreTests.message("c"), to: recipient, folder: .inbox, now: 5)
            #expect(try await store.page(address: address, page: 1).map(\.id) == c + a, "round \(round)")
        }
    }
}

/// The web inbox's list reads its page in one transaction: the same rows, order, total and state as the separate
/// reads of `Email/query` and `Email/get`, and whether each row has attachments.
@Suite("Mail store: the list page in one read")
struct MailListPageTests {
    @Test("state, rows, order, total and attachment marks agree with state + query + messages", arguments: StorageBackend.allCases)
    func agrees(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let address = "list@mail.localhost"
        let recipient = [MailStore.Recipient(address: address, quota: 1_000_000)]
        #expect(try await store.listPage(address: address, filter: .inFolder(.inbox), position: 0, limit: 3)
            == MailListPage(state: 0, rows: [], total: 0))
        let pdf = MailAttachment(
            filename: "a.pdf", contentType: "application/pdf", contentID: nil, disposition: "attachment", data: [1])
        for index in 0..<7 {
            _ = try await store.deliver(
                MailStoreTests.message("m\(index)", attachments: index % 3 == 0 ? [pdf] : []), to: recipient,
                folder: .inbox, now: 100)
        }
        for position in [0, 3, 6, 9] {
            let page = try await store.listPage(address: address, filter: .inFolder(.inbox), position: position, limit: 3)
            let (ids, total) = try await store.query(
                address: address, filter: .inFolder(.inbox), sort: [], position: position, limit: 3)
            let records = try await store.messages(address: address, ids: ids)
            #expect(page.rows.map(\.summary.id) == ids, "position \(position)")
            #expect(page.rows.map(\.summary) == ids.compactMap { records[$0]?.summary })
            #expect(page.rows.map(\.hasAttachments) == ids.map { !(records[$0]?.attachments.isEmpty ?? true) })
            #expect(page.total == total && page.total == 7)
            #expect(page.state == (try await store.state(address: address)))
        }
        let marked = try await store.listPage(address: address, filter: .inFolder(.inbox), position: 0, limit: 10)
        #expect(marked.rows.filter(\.hasAttachments).count == 3)
        #expect(try await store.listPage(address: "other@mail.localhost", filter: .inFolder(.inbox), position: 0, limit: 10)
            .rows.isEmpty)
    }
}
