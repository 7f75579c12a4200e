import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// The store's side of IMAP's `\Recent` (migration 0064): per mailbox, the highest UID a session was told is recent,
/// raised by a claim that hands each UID to one claimer, also when two instances claim at once.
@Suite("Mail store: recent UIDs claimed once", .timeLimit(.minutes(3)))
struct MailRecentTests {
    static let address = "recent@mail.localhost"

    static func deliver(_ store: MailStore, _ count: Int) async throws {
        for index in 0..<count {
            _ = try await store.deliver(
                MailStoreTests.message("m\(index)"), to: [.init(address: address, quota: 100_000_000)], folder: .inbox,
                now: 1)
        }
    }

    @Test("A claim takes the UIDs above the mark once; each mailbox has its own mark, 0 before any claim", arguments: StorageBackend.allCases)
    func claims(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        try await Self.deliver(store, 3)
        #expect(try await store.recentUID(address: Self.address, folder: .inbox) == 0)
        #expect(try await store.claimRecent(address: Self.address, folder: .inbox, through: 3) == 1...3)
        #expect(try await store.claimRecent(address: Self.address, folder: .inbox, through: 3) == nil)
        #expect(try await store.claimRecent(address: Self.address, folder: .inbox, through: 2) == nil, "never lowered")
        #expect(try await store.recentUID(address: Self.address, folder: .inbox) == 3)
        try await Self.deliver(store, 2)
        #expect(try await store.claimRecent(address: Self.address, folder: .inbox, through: 5) == 4...5)
        #expect(try await store.recentUID(address: Self.address, folder: .sent) == 0)
        #expect(try await store.recentUID(address: "other@mail.localhost", folder: .inbox) == 0)
    }

    @Test("Claims racing on two instances: the UIDs handed out are disjoint and cover every one", arguments: StorageBackend.allCases)
    func racing(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let stores = [MailStore(database: db.database), MailStore(database: try db.test.another())]
        try await Self.deliver(stores[0], 40)
        let taken = try await withThrowingTaskGroup(of: ClosedRange<UInt32>?.self) { group in
            for through in 1...40 {
                group.addTask {
                    try await stores[through % 2].claimRecent(
                        address: Self.address, folder: .inbox, through: UInt32(through))
                }
            }
            return try await group.reduce(into: [ClosedRange<UInt32>]()) { if let range = $1 { $0.append(range) } }
        }
        let uids = taken.flatMap { Array($0) }
        #expect(uids.count == 40 && Set(uids) == Set(1...40), "\(taken)")
    }
}
