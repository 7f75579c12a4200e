import Foundation
import Synchronization
import Testing

@testable import Storage

@Suite("ChallengeLedger", .serialized, .timeLimit(.minutes(1)))
struct ChallengeLedgerTests {
    @Test("an id is consumed once; other ids are independent", arguments: Backend.allCases)
    func singleUse(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            let ledger = ChallengeLedger(database: try open())
            #expect(try await ledger.consume(id: "a1", surface: "agent", expiresAt: 2_000))
            #expect(try await ledger.consume(id: "a1", surface: "agent", expiresAt: 2_000) == false)
            #expect(try await ledger.consume(id: "a1", surface: "mailbox", expiresAt: 9_000) == false)
            #expect(try await ledger.consume(id: "a2", surface: "mailbox", expiresAt: 2_000))
        }
    }

    @Test("24 concurrent consumers of one id, over two processes' worth of connections: exactly one wins", arguments: Backend.allCases)
    func concurrentConsumers(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            // Two database handles behave like two server processes (SQLite: separate writers whose INSERTs
            // race in SQLite itself, not only on one queue) or two instances on one PostgreSQL database.
            let first = ChallengeLedger(database: try open())
            let second = ChallengeLedger(database: try open())
            for round in 0..<5 {
                let id = "race-\(round)"
                let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for consumer in 0..<24 {
                        let ledger = consumer.isMultiple(of: 2) ? first : second
                        group.addTask { try await ledger.consume(id: id, surface: "agent", expiresAt: 5_000) }
                    }
                    var wins = 0
                    for try await won in group where won { wins += 1 }
                    return wins
                }
                #expect(winners == 1, "round \(round)")
            }
        }
    }

    @Test("a consumed id stays consumed after the database is closed and reopened", arguments: Backend.allCases)
    func survivesRestart(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            do {
                let ledger = ChallengeLedger(database: try open())
                #expect(try await ledger.consume(id: "persist", surface: "agent", expiresAt: 5_000))
            }
            let reopened = ChallengeLedger(database: try open())
            #expect(try await reopened.consume(id: "persist", surface: "agent", expiresAt: 5_000) == false)
            #expect(try await reopened.consume(id: "fresh", surface: "agent", expiresAt: 5_000))
        }
    }

    @Test("purgeExpired removes rows whose expiry is before now and keeps the rest", arguments: Backend.allCases)
    func purge(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            let database = try open()
            let ledger = ChallengeLedger(database: database)
            for (id, expiry) in [("old", 100), ("edge", 200), ("new", 300)] {
                #expect(try await ledger.consume(id: id, surface: "agent", expiresAt: Int64(expiry)))
            }
            #expect(try await ledger.purgeExpired(now: 200) == 1)
            let left = try await database.read { try $0.query("SELECT id FROM challenges ORDER BY id") }.compactMap {
                $0.text("id")
            }
            #expect(left == ["edge", "new"])
            #expect(try await ledger.purgeExpired(now: 200) == 0)
            #expect(try await ledger.purgeExpired(now: 1_000) == 2)
        }
    }

    @Test("startPurging purges on a timer and stops when cancelled", arguments: Backend.allCases)
    func periodicPurge(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            let database = try open()
            let ledger = ChallengeLedger(database: database)
            #expect(try await ledger.consume(id: "expired-1", surface: "agent", expiresAt: 10))
            #expect(try await ledger.consume(id: "alive", surface: "agent", expiresAt: 10_000))
            let schedule = ledger.startPurging(
                every: .milliseconds(20), now: { 1_000 + ChallengeLedger.clockStepMargin })
            var remaining = try count(database, "challenges")
            let deadline = Date().addingTimeInterval(5)
            while remaining != 1, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
                remaining = try count(database, "challenges")
            }
            #expect(remaining == 1)
            schedule.cancel()
            #expect(schedule.isCancelled)
            #expect(try await ledger.consume(id: "expired-2", surface: "agent", expiresAt: 10))
            try await Task.sleep(for: .milliseconds(200))
            #expect(try count(database, "challenges") == 2)
        }
    }

    @Test("the periodic purge keeps a consumed challenge an hour past expiry: a clock set back cannot revive it", arguments: Backend.allCases)
    func purgeSurvivesClockStepBack(_ backend: Backend) async throws {
        try await withMigratedDatabase(backend) { open in
            let database = try open()
            let ledger = ChallengeLedger(database: database)
            let clock = Mutex<Int64>(1_000)
            #expect(try await ledger.consume(id: "used", surface: "agent", expiresAt: 1_210))
            // The wall clock runs ten minutes ahead for a while: purges run past the challenge's expiry.
            clock.withLock { $0 = 1_000 + 600 }
            let purges = Mutex(0)
            let schedule = ledger.startPurging(every: .milliseconds(10)) {
                purges.withLock { $0 += 1 }
                return clock.withLock { $0 }
            }
            // Two purges began with the clock ahead, so at least one has finished.
            let ahead = Date().addingTimeInterval(5)
            while purges.withLock({ $0 }) < 2 && Date() < ahead { try await Task.sleep(for: .milliseconds(5)) }
            #expect(purges.withLock { $0 } >= 2)
            // Set back to the true time: the challenge verifies again by its exp, and its use is still on record.
            clock.withLock { $0 = 1_010 }
            #expect(try await ledger.consume(id: "used", surface: "agent", expiresAt: 1_210) == false)
            // An hour past expiry the row goes.
            clock.withLock { $0 = 1_210 + ChallengeLedger.clockStepMargin + 1 }
            let deadline = Date().addingTimeInterval(5)
            while try count(database, "challenges") != 0, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try count(database, "challenges") == 0)
            schedule.cancel()
        }
    }

    @Test("probeWrite upserts the single readiness row, and fails before the schema exists")
    func readinessProbe() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let bare = try openDatabase(directory, name: "bare.sqlite")
            let unmigrated = await #expect(throws: StorageError.self) { try await bare.probeWrite(now: 1) }
            #expect(unmigrated?.code == .sqlite)

            let database = try openMigratedDatabase(directory)
            try await database.probeWrite(now: 111)
            try await database.probeWrite(now: 222)
            let rows = try await database.read { try $0.query("SELECT id, checked_at FROM readiness_probe") }
            #expect(rows == [SQLRow(columns: ["id", "checked_at"], values: [.integer(1), .integer(222)])])
        }
    }
}
