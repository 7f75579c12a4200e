import Foundation
import MailStore
import PosternTestSupport
import Storage
import Testing

@testable import PosternApp

/// The LISTEN connection of a server on PostgreSQL (`postern_mail`) losing its backend, as at a failover: the listener
/// connects again, wakes every parked waiter (whatever was notified during the gap is unknown), and hears the
/// notifications sent after (issue 53 item 4).
@Suite("PostgreSQL LISTEN reconnect, end to end", .onPostgres, .serialized, .timeLimit(.minutes(1)))
struct PostgresListenReconnectTests {
    /// The backends listening on `postern_mail` for this test's database.
    private func listeners(_ database: any SQLDatabase) async throws -> [Int64] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT pid FROM pg_stat_activity
                    WHERE datname = current_database() AND application_name = 'postern-listen' AND query = ?
                """, [.text("LISTEN \(MailStore.notificationChannel)")]
            ).compactMap { $0.int("pid") }
        }
    }

    /// Polls `listeners` up to five seconds for one backend other than `old`.
    private func newListener(_ database: any SQLDatabase, other old: Int64? = nil) async throws -> Int64? {
        for _ in 0..<100 {
            if let pid = try await listeners(database).first(where: { $0 != old }) { return pid }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Parks a waiter for `address` (30 s) and returns it once parked; its value is how long it waited.
    private func park(_ changes: MailChanges, _ address: String) async throws -> Task<Duration, Never> {
        let ticket = changes.ticket()
        let waiter = Task {
            let started = ContinuousClock.now
            await changes.wait(for: address, after: ticket, timeout: .seconds(30))
            return ContinuousClock.now - started
        }
        for _ in 0..<100 where changes.waiting(for: address) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(changes.waiting(for: address) == 1, "the waiter did not park")
        return waiter
    }

    @Test("its backend terminated: a parked waiter wakes at the reconnection, and a later NOTIFY still wakes the next")
    func backendTerminated() async throws {
        let url = try PostgresTestServer.shared().freshDatabase()
        let server = try await TestServer.start(.postgres) { $0.storage.databaseURL = url }
        defer { Task { await server.stop() } }
        let database = server.runtime.database
        let changes = server.runtime.mailChanges
        let first = try #require(try await newListener(database), "no backend listens on postern_mail")
        // The listener announces every address once it has connected, which may come after its backend shows in
        // pg_stat_activity: a waiter parked before that announcement would be woken by it, not by the termination.
        for _ in 0..<250 where changes.anyChange.ticket() == 0 { try await Task.sleep(for: .milliseconds(20)) }

        let before = try await park(changes, "before@mail.localhost")
        try await Task.sleep(for: .milliseconds(300))
        #expect(changes.waiting(for: "before@mail.localhost") == 1, "woken before the backend was terminated")
        let terminated = try await database.write { connection in
            try connection.query("SELECT pg_terminate_backend(?::int) AS t", [.integer(first)]).first?.int("t")
        }
        #expect(terminated == 1)
        let waited = await before.value
        #expect(waited < .seconds(10), "the waiter slept out its timeout (\(waited)): the reconnection woke nobody")

        let second = try #require(
            try await newListener(database, other: first), "the listener did not connect again")
        #expect(second != first)
        let after = try await park(changes, "after@mail.localhost")
        let bystander = try await park(changes, "bystander@mail.localhost")
        _ = try await database.write { connection in
            try connection.query(
                "SELECT pg_notify(?, ?) AS n", [.text(MailStore.notificationChannel), .text("after@mail.localhost")])
        }
        let notified = await after.value
        #expect(notified < .seconds(10), "the NOTIFY after the reconnection did not arrive (\(notified))")
        #expect(changes.waiting(for: "bystander@mail.localhost") == 1, "a NOTIFY for one address woke another")
        bystander.cancel()
    }
}
