import Logging
import OutboundQueue
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// A completion that keeps conflicting with other transactions (PostgreSQL's SERIALIZABLE retries spent: `.busy`) is
/// recorded once it gets through, not left to its lease: left, the delivered message would be sent again when the
/// lease ran out (seen in the cluster's outbound test, two instances completing one account's messages at once).
@Suite("Outbound completion under conflicts", .timeLimit(.minutes(1)))
struct OutboundCompletionConflictTests {
    @Test(
        "a delivery whose recording conflicts three times is recorded once, and sent once",
        arguments: StorageBackend.allCases)
    func conflictingCompletion(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let conflicts = Conflicts(3, on: "SET status = ?")
        let database = CountingDatabase(test.database, beforeStatement: conflicts.check)
        let queue = OutboundQueue(database: database, configuration: OutboundQueueConfiguration(), jitter: { 0 })
        let transport = RecordingTransport()
        let running = OutboundDispatcherTests.running(queue, transport, clock: { OutboundDispatcherTests.now })
        try await OutboundDispatcherTests.record(queue, "S1", ["ok@one.example"], at: OutboundDispatcherTests.now)
        try await waitUntil("the delivery recorded") {
            try await queue.submissions(accountID: "A1", ids: ["S1"]).first?.recipients.first?.status.name
                == "delivered"
        }
        running.cancel()
        await running.value
        #expect(conflicts.conflictsLeft == 0, "the completion met every conflict")
        #expect(transport.batches.map(\.recipients) == [["ok@one.example"]], "sent once")
    }
}

/// Statements containing `marker` throw `.busy` (as PostgreSQL's transaction does once its retries are spent; the
/// transaction is rolled back) the first `conflicts` times.
final class Conflicts: Sendable {
    private let marker: String
    private let left: Mutex<Int>

    init(_ conflicts: Int, on marker: String) {
        self.marker = marker
        left = Mutex(conflicts)
    }

    var conflictsLeft: Int { left.withLock { $0 } }

    /// Throws the conflict when `sql` is the marked statement and conflicts are left.
    func check(_ sql: String) throws {
        let conflict = sql.contains(marker) && left.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if conflict { throw StorageError(.busy, "transaction kept conflicting with others (test)") }
    }
}
