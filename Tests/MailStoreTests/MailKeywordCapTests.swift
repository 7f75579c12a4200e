import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// The store's keyword caps (issue 81 item 12), which every door's keyword write meets: IMAP's STORE and APPEND,
/// JMAP's `Email/set`, the web inbox, Mailpit's tags. With the documented defaults (``MailKeywordLimits``): 64
/// keywords on a message, 50 bytes each, 256 distinct in one address's mail.
@Suite("Mail store: keyword caps per message and per address, on every keyword write")
struct MailKeywordCapTests {
    static let address = "k@mail.localhost"

    static func deliver(_ store: MailStore, count: Int, keywords: Set<String> = []) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<count {
            ids += try await store.deliver(
                MailStoreTests.message("m\(index)"), to: [.init(address: address, quota: 1 << 30)], folder: .inbox,
                keywords: keywords, now: 1_000 + Int64(index))
        }
        return ids
    }

    static func keywords(_ count: Int, prefix: String) -> Set<String> { Set((0..<count).map { "\(prefix)\($0)" }) }

    static func stored(_ store: MailStore, _ id: String) async throws -> Set<String> {
        try await store.message(address: address, id: id)?.summary.allKeywords ?? []
    }

    @Test("a message takes 64 keywords of 50 bytes; a 65th or a 51-byte one is refused and nothing changes",
        arguments: StorageBackend.allCases)
    func perMessage(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let id = try await Self.deliver(store, count: 1)[0]

        await #expect(throws: MailStoreError.self) {
            try await store.setKeywords(address: Self.address, [(id, Self.keywords(65, prefix: "k"))])
        }
        await #expect(throws: MailStoreError.self) {
            try await store.update(
                address: Self.address, id: id, keywords: [String(repeating: "x", count: 51)], folder: .inbox)
        }
        #expect(try await Self.stored(store, id).isEmpty)
        // The system flags and `$seen` are not counted: 64 keywords and all five fit.
        let full = Self.keywords(63, prefix: "k").union([String(repeating: "y", count: 50)])
            .union(["$seen", "$flagged", "$answered", "$draft", "$deleted"])
        #expect(try await store.setKeywords(address: Self.address, [(id, full)]) == 1)
        #expect(try await Self.stored(store, id) == full)
        await #expect(throws: MailStoreError.self) {
            try await store.deliver(
                MailStoreTests.message("appended"), to: [.init(address: Self.address, quota: 1 << 30)],
                folder: .inbox, keywords: Self.keywords(65, prefix: "a"), now: 2_000)
        }
        #expect(try await store.page(address: Self.address, page: 1).count == 1, "the refused copy was not stored")
    }

    @Test("an address's mail holds at most 256 distinct keywords: a new one past them is refused, a known one is not",
        arguments: StorageBackend.allCases)
    func perAddress(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let ids = try await Self.deliver(store, count: 5)
        for (index, id) in ids.prefix(4).enumerated() {
            let keywords = Self.keywords(64, prefix: "m\(index)-")
            #expect(try await store.setKeywords(address: Self.address, [(id, keywords)]) == 1)
        }
        await #expect(throws: MailStoreError.self) {
            try await store.setKeywords(address: Self.address, [(ids[4], ["new"])])
        }
        #expect(try await Self.stored(store, ids[4]).isEmpty)
        // Keywords the address already has may go on any of its messages; another address has its own 256.
        #expect(try await store.setKeywords(address: Self.address, [(ids[4], ["m0-1", "m3-63", "$flagged"])]) == 1)
        _ = try await store.deliver(
            MailStoreTests.message("elsewhere"), to: [.init(address: "other@mail.localhost", quota: 1 << 30)],
            folder: .inbox, keywords: ["new"], now: 3_000)
    }

    @Test("a sender's X-Tags never refuses its message: the tags that fit are kept, in name order, the rest dropped",
        arguments: StorageBackend.allCases)
    func headerTags(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        var tagged = MailStoreTests.message("tagged")
        let tag = { (n: Int) in n < 10 ? "t0\(n)" : "t\(n)" }
        tagged.headerKeywords = Set((0..<70).map(tag)).union([String(repeating: "z", count: 60)])
        let id = try await store.deliver(
            tagged, to: [.init(address: Self.address, quota: 1 << 30)], folder: .inbox, keywords: ["given"],
            now: 1_000)[0]
        #expect(try await Self.stored(store, id) == Set((0..<63).map(tag)).union(["given"]))
    }
}
