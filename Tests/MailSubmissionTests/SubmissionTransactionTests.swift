import MailDelivery
import MailStore
import MailSubmission
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Storage
import Testing

/// A submission is one write transaction (issue 87): the sender's copy kept in Sent, the local recipients' copies, the
/// outbox and the ledger's record commit together, and a refusal or a failure anywhere in it keeps none of them.
@Suite("Submission transaction", .timeLimit(.minutes(2)))
struct SubmissionTransactionTests {
    typealias Harness = SubmitterHarness
    static let carol = "carol@far.example"

    /// What the store and the ledger hold of ada's submissions: her Sent copies, bob's inbox, the outbox, the
    /// ledger's records and the queue's messages.
    static func kept(_ harness: Harness) async throws -> [Int] {
        [
            try await harness.store.page(address: Harness.ada, folder: .sent, page: 1).count,
            try await harness.store.page(address: Harness.bob, page: 1).count,
            try await harness.store.outbox().count,
            try await harness.recorded().count,
            try await harness.queue.list().count,
        ]
    }

    @Test(
        "the sender's copy kept in Sent, the local copy and the record commit together, the copy the submission's email",
        arguments: StorageBackend.allCases)
    func keptTogether(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let submitted = try await harness.submitKeepingInSent(
            Harness.message(to: "bob@agents.test, carol@far.example"), to: [Harness.bob, Self.carol])
        #expect([submitted.delivered, submitted.undelivered, submitted.queued] == [1, 0, 1])
        let sent = try await harness.store.page(address: Harness.ada, folder: .sent, page: 1)
        let copy = try #require(sent.first)
        #expect(submitted.record.emailID == copy.id)
        #expect(submitted.record.threadID == copy.threadID)
        #expect(copy.isRead)
        #expect(try await harness.store.origin(address: Harness.ada, id: copy.id) == .written)
        #expect(try await Self.kept(harness) == [1, 1, 0, 1, 1])
    }

    /// Statements a submission to bob and carol runs after ada's Sent copy and bob's copy are written, with outbound
    /// delivery on (carol queued) or off (carol held in the outbox).
    static let lateStatements: [(sendsOutside: Bool, statement: String)] = [
        (true, "INSERT INTO outbound_recipients"), (true, "INSERT INTO outbound_contents"),
        (false, "INSERT INTO mail_outbox"), (false, "INSERT INTO outbound_recipients"),
    ]

    @Test(
        "a storage failure late in the submission's transaction keeps none of it: no Sent copy, local copy, outbox, record",
        arguments: StorageBackend.allCases, lateStatements.indices)
    func failedWriteKeepsNothing(_ backend: StorageBackend, late: Int) async throws {
        let (sendsOutside, statement) = Self.lateStatements[late]
        let harness = try Harness(backend, sendsOutside: sendsOutside)
        harness.outage.arm { $0.contains(statement) }
        await #expect(throws: StorageError.self) {
            _ = try await harness.submitKeepingInSent(Harness.message(), to: [Harness.bob, Self.carol])
        }
        harness.outage.end()
        #expect(harness.outage.failed == 1)
        #expect(try await Self.kept(harness) == [0, 0, 0, 0, 0])
        // The same submission goes through once the database is back.
        #expect(try await harness.submitKeepingInSent(Harness.message(), to: [Harness.bob, Self.carol]).delivered == 1)
        #expect(try await Self.kept(harness) == (sendsOutside ? [1, 1, 0, 1, 1] : [1, 1, 1, 1, 0]))
    }

    @Test(
        "a submission kept in Sent is one write on the database, its one transaction",
        arguments: StorageBackend.allCases)
    func oneWrite(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let raw = Harness.message(to: "bob@agents.test, carol@far.example")
        let before = harness.counting.counts
        _ = try await harness.submitKeepingInSent(raw, to: [Harness.bob, Self.carol])
        let writes = harness.counting.counts.transactions - before.transactions
        #expect(writes == 1)
    }

    @Test("a Sent copy past the sender's quota is refused by the store, and nothing is delivered or recorded")
    func sentCopyOverQuota() async throws {
        let harness = try Harness(.sqlite)
        let big = Harness.message(body: String(repeating: "x", count: 1_000_001))
        await #expect(throws: MailStoreError.quotaExceeded(address: Harness.ada)) {
            _ = try await harness.submitKeepingInSent(big, to: [Harness.bob])
        }
        #expect(try await Self.kept(harness) == [0, 0, 0, 0, 0])
    }
}
