import MailStore
import Testing

@testable import IMAPServer

/// The listener's shared looks at selected mailboxes: one load per mailbox and state, the array itself shared, a
/// later state never replaced by an earlier one, and the entry bound.
@Suite("IMAP server: the shared snapshot cache")
struct IMAPSnapshotCacheTests {
    /// Counts the loads it serves; each answers `count` entries with UIDs 1...count.
    actor Loads {
        var count = 0

        func load(_ entries: Int) -> IMAPSnapshotCache.Snapshot {
            count += 1
            return (
                MailUIDMailbox(uidValidity: 7, uidNext: UInt32(entries + 1)),
                (1...max(1, entries)).prefix(entries).map {
                    MailUIDEntry(uid: UInt32($0), id: "m\($0)", keywords: [], size: 10, receivedAt: 0)
                }
            )
        }
    }

    @Test("one load per mailbox and state; a new state loads again")
    func sharedPerState() async throws {
        let cache = IMAPSnapshotCache(capacity: 1000)
        let loads = Loads()
        let first = try await cache.snapshot(address: "a@x", folder: .inbox, state: 5) { await loads.load(3) }
        let second = try await cache.snapshot(address: "a@x", folder: .inbox, state: 5) { await loads.load(4) }
        #expect(await loads.count == 1, "the second session at state 5 is given the kept look")
        #expect(second.entries == first.entries)
        first.entries.withUnsafeBufferPointer { one in
            second.entries.withUnsafeBufferPointer { other in #expect(one.baseAddress == other.baseAddress, "one array") }
        }
        let moved = try await cache.snapshot(address: "a@x", folder: .inbox, state: 6) { await loads.load(4) }
        let loaded = await loads.count
        #expect(loaded == 2 && moved.entries.count == 4, "state 6: looked at again")
        _ = try await cache.snapshot(address: "a@x", folder: .sent, state: 6) { await loads.load(1) }
        _ = try await cache.snapshot(address: "b@x", folder: .inbox, state: 6) { await loads.load(1) }
        #expect(await loads.count == 4, "each mailbox of each address is its own")
    }

    @Test("a look at an earlier state does not replace a later one")
    func laterKept() async throws {
        let cache = IMAPSnapshotCache(capacity: 1000)
        let loads = Loads()
        _ = try await cache.snapshot(address: "a@x", folder: .inbox, state: 9) { await loads.load(5) }
        let older = try await cache.snapshot(address: "a@x", folder: .inbox, state: 8) { await loads.load(4) }
        #expect(older.entries.count == 4, "the caller gets its own look")
        let again = try await cache.snapshot(address: "a@x", folder: .inbox, state: 9) { await loads.load(6) }
        let loaded = await loads.count
        #expect(again.entries.count == 5 && loaded == 2, "state 9's look is still kept")
    }

    @Test("at most `capacity` entries kept in all, the least recently used mailbox going first")
    func bounded() async throws {
        let cache = IMAPSnapshotCache(capacity: 10)
        let loads = Loads()
        _ = try await cache.snapshot(address: "a@x", folder: .inbox, state: 1) { await loads.load(4) }
        _ = try await cache.snapshot(address: "b@x", folder: .inbox, state: 1) { await loads.load(4) }
        _ = try await cache.snapshot(address: "a@x", folder: .inbox, state: 1) { await loads.load(4) }  // a used last
        _ = try await cache.snapshot(address: "c@x", folder: .inbox, state: 1) { await loads.load(4) }
        #expect(await cache.mailboxCount == 2, "b went to make room")
        _ = try await cache.snapshot(address: "a@x", folder: .inbox, state: 1) { await loads.load(4) }
        #expect(await loads.count == 3, "a is still kept")
        _ = try await cache.snapshot(address: "d@x", folder: .inbox, state: 1) { await loads.load(11) }
        #expect(await cache.mailboxCount == 2, "a mailbox larger than the bound is served, not kept")
    }
}
