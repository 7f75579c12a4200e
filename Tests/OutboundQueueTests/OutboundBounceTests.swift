import Directory
import MailDelivery
import MailStore
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Storage
import Testing

/// Every report to the sender is the queue's and is durable: a completion whose recipients failed for good puts one
/// bounce in the sender's inbox in the transaction that records the failures, linked to the submission, and one whose
/// recipients were deferred long enough puts one delay notice there in the transaction that marks them told; when a
/// report cannot be written, nothing of the completion is.
@Suite("Outbound reports to the sender: bounces and delay notices", .timeLimit(.minutes(1)))
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

        func delayNotice(
            for batch: OutboundBatch, arrivalDate: Int64, delayed: [OutboundOutcome], willRetryUntil: Int64, now: Int64
        ) -> [UInt8] {
            let lines = delayed.map { "<\($0.recipient)>: \($0.reply?.description ?? "")" }.joined(separator: "\r\n")
            return Array(
                ("From: MAILER-DAEMON@local.test\r\nTo: \(batch.sender)\r\nSubject: Delayed (\(batch.messageID))\r\n"
                    + "\r\nuntil \(willRetryUntil)\r\n\(lines)\r\n").utf8)
        }
    }

    /// A mailbox whose every write fails as storage would, after writing a row of its own on the connection.
    struct BrokenMailbox: SenderReportMailbox {
        struct Unwritable: Error {}
        func reportDestination(for sender: String) async throws -> SenderReportDestination? {
            SenderReportDestination(recipient: MailStore.Recipient(address: sender, quota: 1 << 20))
        }
        func storeReport(
            _ report: [UInt8], in destination: SenderReportDestination, now: Int64, on connection: any SQLConnection
        ) throws -> String? {
            try connection.run(
                "INSERT INTO outbound_bounces (submission_id, email_id, created_at) VALUES ('S1', 'half', 0)", [])
            throw Unwritable()
        }
        func reportStored(in destination: SenderReportDestination) {}
    }

    /// A queue that tells a delay after 600 s and gives up after an hour.
    static func queue(_ database: any SQLDatabase, mailbox: any SenderReportMailbox) -> OutboundQueue {
        var configuration = OutboundQueueConfiguration()
        configuration.delayNoticeSeconds = 600
        configuration.maxQueueSeconds = 3600
        return OutboundQueue(
            database: database, configuration: configuration,
            reports: SenderReports(mailbox: mailbox, writer: PlainReport()))
    }

    /// The mail store over `database` and a queue that reports into it through ``LocalDelivery``.
    static func delivering(_ database: any SQLDatabase) -> (MailStore, OutboundQueue) {
        let store = MailStore(database: database)
        let delivery = LocalDelivery(directory: SenderDirectory(), store: store, clock: { Self.now })
        return (store, Self.queue(database, mailbox: delivery))
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
        let (store, queue) = Self.delivering(test.database)
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

    static let busy = [
        OutboundOutcome(
            recipient: "ok@far.example", status: .temporary("450 4.2.0 busy"), remoteHost: "mx.far.example"),
        OutboundOutcome(recipient: "gone@far.example", status: .accepted("250 2.0.0 ok"), remoteHost: "mx.far.example"),
    ]

    @Test(
        "the delay notice is in the sender's inbox when complete returns, and is written once",
        arguments: StorageBackend.allCases)
    func delayNoticeInSameCompletion(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let (store, queue) = Self.delivering(test.database)
        try await Self.record(queue)
        let claim = try #require(try await queue.claim(now: Self.now + 600, limit: 10).first)
        // No dispatcher, no closure after the commit: what complete wrote is all there is.
        let done = try await queue.complete(claim, Self.busy, now: Self.now + 600)
        let noticeID = try #require(done.delayNoticeEmailID)
        #expect(done.bounceEmailID == nil)
        #expect(done.delayed.map(\.recipient) == ["ok@far.example"])
        let notice = try #require(try await store.message(address: Self.sender, id: noticeID))
        #expect(notice.summary.subject == "Delayed (S1)")
        #expect(notice.textBody?.contains("until \(Self.now + 3600)") == true)
        #expect(notice.textBody?.contains("<ok@far.example>: 450 4.2.0 busy") == true)
        #expect(notice.textBody?.contains("gone@far.example") == false)
        // Deferred again: the recipient was told once.
        let again = try #require(try await queue.claim(now: Self.now + 5000, limit: 10).first)
        let later = try await queue.complete(again, [Self.busy[0]], now: Self.now + 1200)
        #expect(later.delayNoticeEmailID == nil && later.delayed.isEmpty)
        #expect(try await store.page(address: Self.sender, page: 1).map(\.id) == [noticeID])
    }

    /// Which report a completion writes: a bounce (a recipient failed for good, at once), a delay notice (a recipient
    /// deferred 600 s after the message was queued).
    enum Report: String, CaseIterable, CustomStringConvertible {
        case bounce, delayNotice
        var description: String { rawValue }
        /// When the attempt is completed.
        var at: Int64 { self == .bounce ? OutboundBounceTests.now + 5 : OutboundBounceTests.now + 600 }
        var outcomes: [OutboundOutcome] { self == .bounce ? OutboundBounceTests.outcomes : OutboundBounceTests.busy }
        func written(_ completion: OutboundCompletion) -> String? {
            self == .bounce ? completion.bounceEmailID : completion.delayNoticeEmailID
        }
    }

    @Test(
        "a report that cannot be written rolls the whole completion back: no failure, no suppression, no link, no mark",
        arguments: StorageBackend.allCases, Report.allCases)
    func reportFailureRollsBack(backend: StorageBackend, report: Report) async throws {
        let test = try backend.makeDatabase()
        let queue = Self.queue(test.database, mailbox: BrokenMailbox())
        try await Self.record(queue)
        let state = try await queue.state(accountID: "A1")
        let claim = try #require(try await queue.claim(now: report.at, limit: 10).first)
        await #expect(throws: BrokenMailbox.Unwritable.self) {
            try await queue.complete(claim, report.outcomes, now: report.at)
        }
        let record = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(record.recipients.map(\.status) == [.queued, .queued])
        #expect(record.bounceEmailIDs.isEmpty)
        #expect(try await queue.state(accountID: "A1") == state)
        #expect(try await queue.suppression(of: "gone@far.example", now: report.at) == nil)
        // The lease still holds the batch; once it runs out the attempt is made again, its report and all (the delay
        // is still to be told: the mark went with the rest).
        let (_, working) = Self.delivering(test.database)
        let later = report.at + queue.leaseSeconds
        let again = try #require(try await working.claim(now: later, limit: 10).first)
        #expect(again.batch.recipients == ["ok@far.example", "gone@far.example"])
        #expect(report.written(try await working.complete(again, report.outcomes, now: later)) != nil)
    }
}
