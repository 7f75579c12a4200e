import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import MailStore

/// IMAP's and POP3's numbering of the one store (migration 0060): a UID per message in its mailbox (address and
/// folder) that rises and never goes backwards, whatever door stores or moves the message, and a UIDVALIDITY fixed
/// for the mailbox's life.
@Suite("Mail store: UIDs per mailbox", .serialized, .timeLimit(.minutes(5)))
struct MailUIDTests {
    static let address = "uids@mail.localhost"
    static var recipient: [MailStore.Recipient] { [.init(address: address, quota: 100_000_000)] }

    @Test("UIDs rise per mailbox, are never reused after a delete, and a move takes the destination's next", arguments: StorageBackend.allCases)
    func numbering(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let empty = try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 1_800_000_000)
        #expect(empty.mailbox == MailUIDMailbox(uidValidity: 1_800_000_000, uidNext: 1))
        #expect(empty.entries.isEmpty)
        var ids: [String] = []
        for index in 0..<3 {
            ids += try await store.deliver(
                MailStoreTests.message("m\(index)"), to: Self.recipient, folder: .inbox, now: 100 + Int64(index))
        }
        let sent = try await store.deliver(MailStoreTests.message("s"), to: Self.recipient, folder: .sent, now: 200)
        let inbox = try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 1_900_000_000)
        #expect(inbox.entries.map(\.uid) == [1, 2, 3])
        #expect(inbox.entries.map(\.id) == ids)
        #expect(inbox.mailbox == MailUIDMailbox(uidValidity: 1_800_000_000, uidNext: 4), "UIDVALIDITY kept")
        #expect(try await store.uidSnapshot(address: Self.address, folder: .sent, now: 0).entries.map(\.uid) == [1])

        #expect(try await store.delete(address: Self.address, ids: [ids[2]]) == 1)
        let fourth = try await store.deliver(MailStoreTests.message("m3"), to: Self.recipient, folder: .inbox, now: 300)
        #expect(try await store.uids(address: Self.address, ids: fourth) == [fourth[0]: 4], "3 is never given again")

        let moved = try await store.move(address: Self.address, ids: [ids[0]], to: .sent)
        #expect(moved == [ids[0]: 2], "the move takes Sent's next UID")
        let copied = try await store.copy(address: Self.address, ids: sent, to: .inbox, quota: 100_000_000)
        #expect(copied == [sent[0]: 5], "the copy takes INBOX's next UID")
        let after = try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 0)
        #expect(after.entries.map(\.uid) == [2, 4, 5])
        #expect(after.mailbox.uidNext == 6)
    }

    @Test("raws reads many messages' bytes at once, only the address's own", arguments: StorageBackend.allCases)
    func raws(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        var ids: [String] = []
        for index in 0..<3 {
            ids += try await store.deliver(MailStoreTests.message("r\(index)"), to: Self.recipient, folder: .inbox, now: 1)
        }
        let other = try await store.deliver(
            MailStoreTests.message("o"), to: [.init(address: "other@mail.localhost", quota: 100_000_000)], folder: .inbox,
            now: 1)
        let found = try await store.raws(address: Self.address, ids: ids + other + ["no-such-id"])
        #expect(Set(found.keys) == Set(ids), "another address's message and an unknown id are left out")
        for id in ids { #expect(try await store.raw(address: Self.address, id: id) == found[id]) }
        #expect(try await store.raws(address: Self.address, ids: []).isEmpty)
    }

    @Test("stateAndRaws reads the state and the bytes together; a change after moves the state it reads", arguments: StorageBackend.allCases)
    func stateAndRaws(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let ids = try await store.deliver(MailStoreTests.message("s0"), to: Self.recipient, folder: .inbox, now: 1)
        let first = try await store.stateAndRaws(address: Self.address, ids: ids + ["no-such-id"])
        #expect(first.state == (try await store.state(address: Self.address)))
        #expect(first.raws == (try await store.raws(address: Self.address, ids: ids)))
        #expect(try await store.stateAndRaws(address: "other@mail.localhost", ids: ids).raws.isEmpty)

        _ = try await store.setKeywords(address: Self.address, [(ids[0], ["$flagged"])])
        let flagged = try await store.stateAndRaws(address: Self.address, ids: ids)
        #expect(flagged.state > first.state, "a flag set is a change the reader sees")
        let more = try await store.deliver(MailStoreTests.message("s1"), to: Self.recipient, folder: .inbox, now: 2)
        let delivered = try await store.stateAndRaws(address: Self.address, ids: ids + more)
        #expect(delivered.state > flagged.state && Set(delivered.raws.keys) == Set(ids + more))
        #expect(try await store.stateAndRaws(address: Self.address, ids: []).raws.isEmpty)
    }

    @Test("keywords set through IMAP are JMAP's, $seen the read state", arguments: StorageBackend.allCases)
    func keywords(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let ids = try await store.deliver(MailStoreTests.message("k"), to: Self.recipient, folder: .inbox, now: 1)
        #expect(try await store.setKeywords(address: Self.address, [(ids[0], ["$seen", "$flagged", "nonjunk"])]) == 1)
        let record = try #require(try await store.message(address: Self.address, id: ids[0]))
        #expect(record.summary.isRead)
        #expect(Set(record.summary.keywords) == ["$flagged", "nonjunk"])
        let entry = try #require(try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 0).entries.first)
        #expect(entry.keywords == ["$seen", "$flagged", "nonjunk"])
    }

    @Test("200 concurrent deliveries: a reader never finds a UID below one it has seen", arguments: StorageBackend.allCases)
    func concurrentDeliveries(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let done = DoneFlag()
        let violations = try await withThrowingTaskGroup(of: [String].self) { group in
            group.addTask {
                // The client: after each look, only UIDs above the largest it saw may be new (`UID n+1:*`).
                var known = Set<UInt32>()
                var largest: UInt32 = 0
                var violations: [String] = []
                while true {
                    let finished = done.value.load(ordering: .acquiring)
                    let uids = try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 1).entries.map(\.uid)
                    for uid in uids where !known.contains(uid) && uid <= largest {
                        violations.append("UID \(uid) appeared after \(largest)")
                    }
                    known.formUnion(uids)
                    largest = Swift.max(largest, uids.max() ?? 0)
                    if finished { return violations }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { deliveries in
                for index in 0..<200 {
                    deliveries.addTask {
                        _ = try await store.deliver(
                            MailStoreTests.message("c\(index)"), to: Self.recipient, folder: .inbox, now: 1)
                    }
                }
                try await deliveries.waitForAll()
            }
            done.value.store(true, ordering: .releasing)
            return try await group.next() ?? []
        }
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        let final = try await store.uidSnapshot(address: Self.address, folder: .inbox, now: 1)
        #expect(final.entries.map(\.uid) == Array(1...200))
    }
}

/// Set once the deliveries are done, read by the looking client.
private final class DoneFlag: Sendable {
    let value = Atomic<Bool>(false)
}
