import EmbeddedResources
import Logging
import MailDelivery
import OutboundQueue
import PostgresClient
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// What JMAP's EmailSubmission needs of the queue beyond its records: the envelope kept with a submission, and every
/// move of an account's EmailSubmission state told to this instance (``OutboundQueue/onSubmissionChange``) and, on
/// PostgreSQL, to every instance (`NOTIFY postern_mail` with the sender's address), so that event streams push it.
@Suite("Outbound queue: envelopes and EmailSubmission changes", .timeLimit(.minutes(1)))
struct OutboundSubmissionChangeTests {
    static let now: Int64 = 1_795_600_000

    static func submission(_ id: String, envelope: SubmissionEnvelope?) -> NewSubmission {
        NewSubmission(
            id: id, accountID: "A1", sender: "a@local.test", emailID: "M" + id, threadID: "T" + id, sendAt: now,
            recipients: ["x@one.example", "y@two.example"].map {
                SubmissionRecipient(address: $0, status: .queued)
            }, content: Array("Subject: hi\r\n\r\nhi\r\n".utf8), envelope: envelope)
    }

    /// A record, a completion and a delete of one submission, the last completion after the delete (its lease lost).
    static func moves(_ queue: OutboundQueue) async throws {
        let envelope = SubmissionEnvelope(mailFrom: "A@local.test", rcptTo: ["x@one.example", "y@two.example"])
        _ = try await queue.record(Self.submission("S1", envelope: envelope), limits: [], now: now)
        let claims = try await queue.claim(now: now, limit: 10)
        #expect(claims.map(\.batch.domain).sorted() == ["one.example", "two.example"])
        let outcomes = claims[0].batch.recipients.map {
            OutboundOutcome(recipient: $0, status: .accepted("250 2.0.0 ok"))
        }
        _ = try await queue.complete(claims[0], outcomes, now: now + 1)
        #expect(try await queue.delete(.message("S1"), now: now + 2) == 1)
        let late = claims[1].batch.recipients.map {
            OutboundOutcome(recipient: $0, status: .accepted("250 2.0.0 ok"))
        }
        #expect(try await queue.complete(claims[1], late, now: now + 3).leaseLost)
    }

    @Test(
        "the envelope is kept and read back; a record, a completion and a delete are each told with the sender",
        arguments: StorageBackend.allCases)
    func envelopeAndChanges(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let told = Mutex<[String]>([])
        let queue = OutboundQueue(
            database: test.database, onSubmissionChange: { sender in told.withLock { $0.append(sender) } })
        try await Self.moves(queue)
        #expect(told.withLock { $0 } == ["a@local.test", "a@local.test", "a@local.test"], "nothing for a lost lease")
        #expect(try await queue.state(accountID: "A1") == "3")
        let read = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(
            read.envelope == SubmissionEnvelope(mailFrom: "A@local.test", rcptTo: ["x@one.example", "y@two.example"]))
        _ = try await queue.record(Self.submission("S2", envelope: nil), limits: [], now: Self.now)
        #expect(try await queue.submissions(accountID: "A1", ids: ["S2"]).first?.envelope == nil)
    }

    @Test("PostgreSQL: each move of the state notifies postern_mail with the sender's address when it commits", .onPostgres)
    func notifiesOtherInstances() async throws {
        let url = try PostgresTestServer.shared().freshDatabase()
        let logger = Logger(label: "outbound-change-tests")
        let database = try PostgresDatabase(url: url, count: 1, logger: logger)
        defer { database.close() }
        try Migrator(migrations: EmbeddedResources.migrations(for: .postgres)).migrate(database)
        let heard = Mutex<(connected: Bool, payloads: [String])>((false, []))
        let listener = PostgresListener(url: url, channel: "postern_mail", logger: logger) { payload in
            heard.withLock { if let payload { $0.payloads += payload } else { $0.connected = true } }
        }
        defer { listener.stop() }
        try await waitUntil("the listener connected") { heard.withLock { $0.connected } }
        try await Self.moves(OutboundQueue(database: database))
        try await waitUntil("three notifications") { heard.withLock { $0.payloads.count } >= 3 }
        #expect(heard.withLock { $0.payloads } == ["a@local.test", "a@local.test", "a@local.test"])
    }
}
