import EmbeddedResources
import Foundation
import Logging
import PostgresClient
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import MailStore

@Suite("Mail change log: written with every change, trimmed, waking waiters", .serialized, .timeLimit(.minutes(1)))
struct MailChangeLogTests {
    @Test("delivery, flag and folder change, deletion each write one row with the state they made", arguments: StorageBackend.allCases)
    func log(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let address = "a@mail.localhost"
        let recipient = MailStore.Recipient(address: address, quota: 100_000)
        let start = try await store.state(address: address)
        let ids = try await store.deliver(MailStoreTests.message("one"), to: [recipient], folder: .inbox, now: 1)
        #expect(try await store.update(address: address, id: ids[0], keywords: ["$seen"], folder: .drafts))
        #expect(try await store.markRead(address: address, ids: nil) == 0)
        #expect(try await store.delete(address: address, id: ids[0]))
        let (log, state) = try #require(try await store.changes(address: address, since: start))
        #expect(state == start + 3)
        #expect(log.map(\.seq) == [start + 1, start + 2, start + 3])
        #expect(log.map(\.kind) == [.created, .updated, .destroyed])
        #expect(log.allSatisfy { $0.messageID == ids[0] && $0.threadID == ids[0] })
        #expect(log.map(\.folderBefore) == [nil, .inbox, .drafts])
        #expect(log.map(\.folderAfter) == [.inbox, .drafts, nil])
        #expect(try await store.changes(address: address, since: state)?.log == [])
        #expect(try await store.changes(address: address, since: state + 1) == nil, "a state never issued")
        #expect(try await store.changes(address: "other@mail.localhost", since: 0)?.log == [])
        #expect(try await store.existingThreads(address: address, among: [ids[0]]) == [])
    }

    @Test("a failed delivery writes no change; trimming keeps the newest rows and refuses older states", arguments: StorageBackend.allCases)
    func trim(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let address = "t@mail.localhost"
        for subject in ["1", "2", "3", "4"] {
            _ = try await store.deliver(
                MailStoreTests.message(subject), to: [.init(address: address, quota: 100_000)], folder: .inbox, now: 1)
        }
        await #expect(throws: MailStoreError.self) {
            try await store.deliver(
                MailStoreTests.message("big", bytes: 200_000), to: [.init(address: address, quota: 100_000)],
                folder: .inbox, now: 1)
        }
        #expect(try await store.state(address: address) == 4)
        let removed = try await db.database.write { try MailStore.trimChanges($0, keep: 3) }
        #expect(removed == 1)
        #expect(try await store.changes(address: address, since: 0) == nil, "older than the log")
        #expect(try await store.changes(address: address, since: 1)?.log.map(\.seq) == [2, 3, 4])
        #expect(try await db.database.write { try MailStore.trimChanges($0, keep: 3) } == 0)
    }

    @Test("a waiter parks until its address changes; another address's change does not answer it", arguments: StorageBackend.allCases)
    func wait(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        #expect(try await store.nextUnread(address: "w@mail.localhost", timeout: .zero) == nil)
        let waiter = Task { try await store.nextUnread(address: "w@mail.localhost", timeout: .seconds(30)) }
        try await Self.untilParked(store.changes, "w@mail.localhost")
        _ = try await store.deliver(
            MailStoreTests.message("elsewhere"), to: [.init(address: "x@mail.localhost", quota: 100_000)],
            folder: .inbox, now: 1)
        try await Self.untilParked(store.changes, "w@mail.localhost")
        let ids = try await store.deliver(
            MailStoreTests.message("here"), to: [.init(address: "w@mail.localhost", quota: 100_000)], folder: .inbox,
            now: 1)
        #expect(try await waiter.value?.id == ids[0])
        let cancelled = Task { try await store.nextUnread(address: "nobody@mail.localhost", timeout: .seconds(30)) }
        try await Self.untilParked(store.changes, "nobody@mail.localhost")
        cancelled.cancel()
        #expect(try await cancelled.value == nil)
    }

    @Test("SQLite: the store has no listener of its own (other processes announce nothing; the stream looks again)")
    func noListenerOnSQLite() throws {
        let db = try MailDatabase(.sqlite)
        #expect(MailStore(database: db.database).listenToOtherInstances() == nil)
    }

    @Test("PostgreSQL: a change committed by one instance wakes a waiter of another through the store's own LISTEN", .onPostgres)
    func crossInstance() async throws {
        let url = try PostgresTestServer.shared().freshDatabase()
        let logger = Logger(label: "mail-change-tests")
        let first = try PostgresDatabase(url: url, count: 1, logger: logger)
        try Migrator(migrations: EmbeddedResources.migrations(for: .postgres)).migrate(first)
        let second = try PostgresDatabase(url: url, count: 1, logger: logger)
        defer {
            first.close()
            second.close()
        }
        let writer = MailStore(database: first)
        let reader = MailStore(database: second)
        #expect(writer.changes !== reader.changes, "two instances share no process state")
        // A listener that connects announces every address (what was sent before is unknown): the sign it listens.
        let before = reader.changes.anyChange.ticket()
        let listener = try #require(reader.listenToOtherInstances(), "no listener on PostgreSQL")
        defer { listener.stop() }
        try await waitUntil("the listener connects") { reader.changes.anyChange.ticket() != before }
        let waiter = Task { try await reader.nextUnread(address: "far@mail.localhost", timeout: .seconds(30)) }
        try await Self.untilParked(reader.changes, "far@mail.localhost")
        let ids = try await writer.deliver(
            MailStoreTests.message("across"), to: [.init(address: "far@mail.localhost", quota: 100_000)],
            folder: .inbox, now: 1)
        #expect(try await waiter.value?.id == ids[0])
    }

    @Test("a stream woken while the database is away (a listener reconnected) looks again and hands out the next change", arguments: StorageBackend.allCases)
    func wokenWhileAway(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let outage = InjectedOutage()
        let store = MailStore(database: CountingDatabase(db.database, beforeStatement: outage.beforeStatement))
        let address = "away@mail.localhost"
        let start = try await store.state(address: address)
        let stream = Task {
            var events = store.changeStream(of: address, from: start).makeAsyncIterator()
            return try await events.next()
        }
        try await Self.untilParked(store.changes, address)
        outage.begin()
        store.changes.announceEverywhere()  // what a reconnected listener does
        try await waitUntil("the woken stream looks and finds the database away") { outage.failed > 0 }
        outage.end()
        _ = try await store.deliver(
            MailStoreTests.message("back"), to: [.init(address: address, quota: 100_000)], folder: .inbox, now: 1)
        var handed: Int64?
        if case .changed(let change) = try await stream.value { handed = change.state }
        #expect(handed == start + 1, "the stream handed out the change after the outage")
    }

    @Test("PostgreSQL: a look that outlasts the commit timeout (a read stuck through a failover) is made again, not the stream's end", .onPostgres)
    func lookPastCommitTimeout() async throws {
        let url = try PostgresTestServer.shared().freshDatabase()
        let database = try PostgresDatabase(
            url: url, count: 2, commitTimeout: .seconds(1), logger: Logger(label: "mail-change-tests"))
        defer { database.close() }
        try Migrator(migrations: EmbeddedResources.migrations(for: .postgres)).migrate(database)
        let store = MailStore(database: database)
        let address = "stuck@mail.localhost"
        let start = try await store.state(address: address)
        // The wake-up itself (`.woken`, once a look gets through) and then the delivery's change.
        let stream = Task { () -> Int64? in
            for try await event in store.changeStream(of: address, from: start) {
                if case .changed(let change) = event { return change.state }
            }
            return nil
        }
        try await Self.untilParked(store.changes, address)
        // The state's table locked by another session: each look waits on the lock past the commit timeout.
        let locker = try PostgresConnection(url: url)
        let watcher = try PostgresConnection(url: url)
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE mail_state IN ACCESS EXCLUSIVE MODE")
        store.changes.announceEverywhere()  // what a reconnected listener does
        // Two sessions waiting on the lock: the first look's, left behind at its timeout, and the look made after it.
        try await waitUntil("the stream looked again after its look timed out", limit: .seconds(30)) {
            try await Task.sleep(for: .milliseconds(50))
            return try watcher.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            ).first?.int("n") ?? 0 >= 2
        }
        try locker.execute("ROLLBACK")
        _ = try await store.deliver(
            MailStoreTests.message("unstuck"), to: [.init(address: address, quota: 100_000)], folder: .inbox, now: 1)
        #expect(try await stream.value == start + 1, "the stream handed out the change after the stuck looks")
    }

    /// Returns once a waiter for `address` is parked (or records the issue after ``waitUntil``'s minute: a busy
    /// machine's test process may start the waiter's task late).
    static func untilParked(_ changes: MailChanges, _ address: String) async throws {
        try await waitUntil("a waiter for \(address) parked") { changes.waiting(for: address) > 0 }
    }
}
