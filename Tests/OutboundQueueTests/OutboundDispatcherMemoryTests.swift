import Foundation
import Logging
import MailDelivery
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Storage
import Synchronization
import Testing

/// The dispatcher keeps nothing of an attempt once it ended: 2,000 deferred attempts leave the process's resident
/// memory flat (each attempt's batch carries a 16 KiB message, so an attempt kept alive shows).
@Suite("Outbound dispatcher memory", .timeLimit(.minutes(3)))
struct OutboundDispatcherMemoryTests {
    static let now: Int64 = 1_795_600_000

    /// Defers every recipient at once and counts the attempts.
    final class DeferringTransport: OutboundTransport {
        let attempts = Atomic<Int>(0)
        func deliver(_ batch: OutboundBatch) async -> [OutboundOutcome] {
            attempts.add(1, ordering: .relaxed)
            return batch.recipients.map { OutboundOutcome(recipient: $0, status: .temporary("451 4.3.0 later")) }
        }
    }

    /// The resident set size, bytes (`/proc/self/statm`'s second field, in pages).
    static func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let pages = try #require(Int(statm.split(separator: " ")[1]))
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("2,000 deferred attempts leave memory flat")
    func deferredAttemptsLeaveMemoryFlat() async throws {
        let test = try StorageBackend.sqlite.makeDatabase()
        var configuration = OutboundQueueConfiguration()
        configuration.retrySeconds = [86_400]
        let queue = OutboundQueue(database: test.database, configuration: configuration)
        let body = String(repeating: "0123456789abcdef", count: 1024)
        let total = 2_000
        for index in 0..<total {
            _ = try await queue.record(
                NewSubmission(
                    id: "S\(index)", accountID: "A1", sender: "a@local.test", emailID: "M\(index)",
                    threadID: "T\(index)", sendAt: Self.now,
                    recipients: [SubmissionRecipient(address: "x\(index)@d\(index % 50).example", status: .queued)],
                    content: Array("Subject: \(index)\r\n\r\n\(body)\r\n".utf8)),
                limits: [], now: Self.now)
        }
        let transport = DeferringTransport()
        var settings = OutboundDispatcher.Settings()
        settings.idleInterval = .milliseconds(20)
        let dispatcher = OutboundDispatcher(
            queue: queue, transport: transport, settings: settings, clock: { Self.now },
            logger: Logger(label: "outbound.tests"))
        let running = Task { await dispatcher.run() }
        try await waitUntil("200 attempts", limit: .seconds(120)) { transport.attempts.load(ordering: .relaxed) >= 200 }
        let before = try Self.residentBytes()
        try await waitUntil("every attempt recorded", limit: .seconds(150)) {
            try await queue.nextDue() ?? 0 > Self.now
        }
        let after = try Self.residentBytes()
        running.cancel()
        await running.value
        #expect(transport.attempts.load(ordering: .relaxed) == total)
        let growth = after - before
        print("outbound dispatcher memory: \(total) deferred attempts, resident growth \(growth / 1024) KiB")
        // A kept attempt keeps its 16 KiB batch: 1,800 of them would be about 29 MiB.
        #expect(growth < 8 * 1024 * 1024, "resident memory grew by \(growth / 1024) KiB")
    }
}
