import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import MailStore

/// The consumer's read after an element, part of the one stream (issue 82 item 4): a wait's look (and a push door's)
/// that finds the database away is tried again until it is back, so a wait through a failover answers with the next
/// delivery instead of failing, on a clock the test moves and on the real one.
@Suite("Mail change stream: the consumer's look outlasts an outage", .timeLimit(.minutes(1)))
struct MailChangeStreamLookTests {
    static let address = "looks@mail.localhost"
    static let recipient = MailStore.Recipient(address: address, quota: 100_000)

    /// The wait's own read (`oldestUnread`'s), which the outage is armed on: the stream's looks read other tables.
    static func isWaitRead(_ sql: String) -> Bool {
        sql.contains("FROM mail_messages WHERE address = ? AND folder = 'inbox' AND is_read = 0")
    }

    @Test("a wait whose look after a delivery finds the database away looks again once it is back, and answers with it", arguments: StorageBackend.allCases)
    func waitThroughOutage(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let outage = InjectedOutage()
        let store = MailStore(database: CountingDatabase(db.database, beforeStatement: outage.beforeStatement))
        let waiter = Task { try await store.nextUnread(address: Self.address, timeout: .seconds(50)) }
        try await MailChangeLogTests.untilParked(store.changes, Self.address)
        // The delivery commits; the wait's read that follows its element is the first statement to fail.
        outage.arm(when: Self.isWaitRead)
        let ids = try await store.deliver(MailStoreTests.message("through"), to: [Self.recipient], folder: .inbox, now: 1)
        try await waitUntil("the wait's look found the database away") { outage.failed > 0 }
        outage.end()
        #expect(try await waiter.value?.id == ids[0], "the wait answered with the delivery, not an error")
    }

    @Test("a look that fails with anything but an outage ends the wait with that error", arguments: StorageBackend.allCases)
    func otherErrorsEnd(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.changeStream(of: Self.address, until: .now + .seconds(30)).firstLook { _ -> Int? in
                throw Refused()
            }
        }
    }

    @Test("an outage still on when the wait's time is up is the wait's error, not 'nothing came'", arguments: StorageBackend.allCases)
    func outageAtTheEnd(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let clock = MailChangeStreamRuleTests.ManualClock()
        let looks = LookCount()
        let stream = store.changeStream(of: Self.address, until: clock.clock.now() + .seconds(5), clock: clock.clock)
        let waiting = Task {
            try await stream.firstLook { _ -> Int? in
                looks.add()
                throw StorageError(.unavailable, "injected: the database is away")
            }
        }
        // Tried again each look interval of the stream's clock until the time is up, then thrown.
        while looks.value < 6 {
            try await waitUntil("the look sleeps on the clock") { clock.sleepers > 0 || looks.value >= 6 }
            clock.advance(by: .seconds(1))
        }
        await #expect(throws: StorageError.self) { try await waiting.value }
        #expect(looks.value == 6, "at once, then after each of the five seconds")
    }
}

/// How many looks ran.
final class LookCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
