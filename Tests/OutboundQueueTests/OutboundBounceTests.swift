import Directory
import MailDelivery
import MailStore
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Storage
import Testing

/// The bounce is the queue's and is durable: a completion whose recipients failed for good puts one report in the
/// sender's inbox in the transaction that records the failures, linked to the submission; when the report cannot be
/// written, nothing of the completion is.
@Suite("Outbound bounces", .timeLimit(.minutes(1)))
struct OutboundBounceTests {
    static let now: Int64 = 1_795_600_000
    static let sender = "agent@local.test"

    /// The sender's domain is local, with one mailbox: the sender's.
    struct SenderDirectory: AccountDirectory {
        func serves(domain: String) -> Bool { domain.lowercased() == "local.test" }
        func resolve(_ address: String) async throws -> AddressResolution {
            guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
            return parts.text == OutboundBounceTests.sender ? .local(Recipient(address: parts.text, quota: 1 << 20))
                : .unknown
        }
    }

    /// A report in RFC 5322's plainest shape: who failed, with their replies.
    struct PlainReport: DeliveryReportWriter {
        func report(for batch: OutboundBatch, arrivalDate: Int64, failed: [OutboundOutcome], expired: Bool, now: Int64)
            -> [UInt8]
        {
            let lines = failed.map { "<\($0.recipient)>: \($0.reply?.description ?? "")" }.joined(separator: "\r\n")
            return Array(
                ("From: MAILER-DAEMON@local.test\r\nTo: \(batch.sender)\r\nSubject: Undelivered (\(batch.messageID))\r\n"
                    + "\r\n\(lines)\r\n").utf8)
        }
    }

    /// A mailbox whose every write fails as storage would, after writing a row of its own on the connection.
    struct BrokenMailbox: BounceMailbox {
        struct Unwritable: Error {}
        func bounceDestination(for sender: String) async throws -> BounceDestination? {
            BounceDestination(recipient: MailStore.Recipient(address: sender, quota: 1 << 20))
        }
        func storeBounce(
            _ report: [UInt8], in destination: BounceDestination, now: Int64, on connection: any SQLConnection
        ) throws -> String? {
            try connection.run(
                "INSERT INTO outbound_bounces (submission_id, email_id, created_at) VALUES ('S1', 'half', 0)", [])
            throw Unwritable()
        }
        func bounceStored(in destination: BounceDestination) {}
    }

    static func queue(_ database: any SQLDatabase, mailbox: any BounceMailbox) -> OutboundQueue {
        OutboundQueue(database: database, bounces: OutboundBounces(mailbox: mailbox, writer: PlainReport()))
    }

    static func record(_ queue: OutboundQueue) async throws {
        _ = try await queue.record(
            NewSubmission(
                id: "S1", accountID: "A1", sender: sender, emailID: "M1", threadID: "T1", sendAt: now,
                recipients: ["ok@far.example", "gone@far.example"].map { SubmissionRecipient(address: $0, status: .queued) },
                content: Array("From: \(sender)\r\nSubject: hi\r\n\r\nhi\r\n".utf8)),
            limits: [], now: now)
    }

    static let outcomes = [
        OutboundOutcome(recipient: "ok@far.example", status: .accepted("250 2.0.0 ok"), remoteHost: "mx.far.example"),
        OutboundOutcome(
            recipient: "gone@far.example", status: .permanent("550 5.1.1 <gone@far.example>: no such user"),
            remoteHost: "mx.far.example"),
    ]

    @Test(
        "the bounce is in the sender's inbox when complete returns, linked to its submission (dsnBlobIds)",
        arguments: StorageBackend.allCases)
    func bounceInSameCompletion(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let store = MailStore(database: test.database)
        let delivery = LocalDelivery(directory: SenderDirectory(), store: store, clock: { Self.now })
        let queue = Self.queue(test.database, mailbox: delivery)
        try await Self.record(queue)
        let claim = try #require(try await queue.claim(now: Self.now, limit: 10).first)
        // No dispatcher, no closure after the commit: what complete wrote is all there is.
        let done = try await queue.complete(claim, Self.outcomes, now: Self.now + 5)
        let bounceID = try #require(done.bounceEmailID)
        let inbox = try await store.page(address: Self.sender, page: 1)
        #expect(inbox.map(\.id) == [bounceID])
        let report = try #require(try await store.message(address: Self.sender, id: bounceID))
        #expect(report.summary.subject == "Undelivered (S1)")
        #expect(report.textBody?.contains("<gone@far.example>: 550 5.1.1") == true)
        #expect(report.textBody?.contains("ok@far.example") == false)
        let record = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(record.bounceEmailIDs == [bounceID])
        #expect(record.recipients.map(\.status.name) == ["delivered", "failed"])
    }

    @Test(
        "a bounce that cannot be written rolls the whole completion back: no failure, no suppression, no link",
        arguments: StorageBackend.allCases)
    func bounceFailureRollsBack(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = Self.queue(test.database, mailbox: BrokenMailbox())
        try await Self.record(queue)
        let state = try await queue.state(accountID: "A1")
        let claim = try #require(try await queue.claim(now: Self.now, limit: 10).first)
        await #expect(throws: BrokenMailbox.Unwritable.self) {
            try await queue.complete(claim, Self.outcomes, now: Self.now + 5)
        }
        let record = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(record.recipients.map(\.status) == [.queued, .queued])
        #expect(record.bounceEmailIDs.isEmpty)
        #expect(try await queue.state(accountID: "A1") == state)
        #expect(try await queue.suppression(of: "gone@far.example", now: Self.now + 5) == nil)
        // The lease still holds the batch; once it runs out the attempt is made again, bounce and all.
        let again = try #require(try await queue.claim(now: Self.now + queue.leaseSeconds, limit: 10).first)
        #expect(again.batch.recipients == ["ok@far.example", "gone@far.example"])
    }
}
