import Dispatch
import MailDelivery
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Storage
import Synchronization
import Testing

/// The outbound queue on both backends: one transaction per record, leases shared between handles, the retry
/// schedule, the queue lifetime, suppression, the per-sender limits, the EmailSubmission reads and the operator's
/// commands.
@Suite("Outbound queue", .timeLimit(.minutes(2)))
struct OutboundQueueTests {
    static let now: Int64 = 1_795_600_000
    static let content = Array("From: a@local.test\r\nTo: x@one.example\r\nSubject: hi\r\n\r\nhi\r\n".utf8)

    static func submission(
        _ id: String, account: String = "A1", sender: String = "a@local.test", at: Int64 = now,
        _ recipients: [SubmissionRecipient]
    ) -> NewSubmission {
        NewSubmission(
            id: id, accountID: account, sender: sender, emailID: "M" + id, threadID: "T" + id, sendAt: at,
            recipients: recipients, content: content)
    }

    static func queued(_ addresses: String...) -> [SubmissionRecipient] {
        addresses.map { SubmissionRecipient(address: $0, status: .queued) }
    }

    static func configuration(_ change: (inout OutboundQueueConfiguration) -> Void = { _ in })
        -> OutboundQueueConfiguration
    {
        var configuration = OutboundQueueConfiguration()
        change(&configuration)
        return configuration
    }

    static func count(_ table: String, _ database: any SQLDatabase) throws -> Int64 {
        try database.readSync { try $0.query("SELECT COUNT(*) AS n FROM \(table)", []) }.first?.int("n") ?? -1
    }

    static func outcome(_ claim: OutboundClaim, _ status: RecipientStatus) -> [OutboundOutcome] {
        claim.batch.recipients.map { OutboundOutcome(recipient: $0, status: status, remoteHost: "mx.test") }
    }

    @Test(
        "a record keeps the submission, every disposition and the message, and claims group by domain",
        arguments: StorageBackend.allCases)
    func recordAndClaim(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        let record = try await queue.record(
            Self.submission(
                "S1",
                [
                    SubmissionRecipient(address: "b@local.test", status: .delivered("250 2.0.0 local")),
                    SubmissionRecipient(address: "x@One.Example", status: .queued),
                    SubmissionRecipient(address: "c@local.test", status: .failed("552 5.2.2 full")),
                    SubmissionRecipient(address: "y@two.example", status: .queued),
                    SubmissionRecipient(address: "z@one.example", status: .queued),
                    SubmissionRecipient(address: "w@three.example", status: .held(.needsOwner)),
                ]), limits: [], now: Self.now)
        #expect(record.recipients.map(\.status.name) == ["delivered", "queued", "failed", "queued", "queued", "held"])
        #expect(try await queue.submissions(accountID: "A1", ids: nil) == [record])
        #expect(try await queue.submissions(accountID: "A2", ids: nil).isEmpty)
        #expect(try await queue.state(accountID: "A1") == "1")
        #expect(try await queue.sentCount(sender: "a@local.test", since: Self.now) == 3)
        #expect(try await queue.nextDue() == Self.now)

        let claims = try await queue.claim(now: Self.now, limit: 10)
        #expect(claims.map(\.batch.domain) == ["one.example", "two.example"])
        #expect(claims.first?.batch.recipients == ["x@One.Example", "z@one.example"])
        #expect(claims.allSatisfy { $0.batch.content == Self.content && $0.batch.sender == "a@local.test" })
        #expect(claims.allSatisfy { $0.batch.messageID == "S1" && $0.batch.attempts == 0 })
        #expect(try await queue.claim(now: Self.now, limit: 10).isEmpty)  // leased
        for claim in claims {
            let done = try await queue.complete(
                claim, Self.outcome(claim, .accepted("250 2.0.0 ok")), now: Self.now + 1)
            #expect(done.ended.map(\.recipient) == claim.batch.recipients)
        }
        let after = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(
            after.recipients.map(\.status.name) == [
                "delivered", "delivered", "failed", "delivered", "delivered", "held",
            ])
        #expect(after.recipients[1].smtpReply == "250 2.0.0 ok")
        #expect(try Self.count("outbound_contents", test.database) == 0)  // dropped once nothing waits
        #expect(try await queue.nextDue() == nil)
    }

    @Test(
        "levels: each waiting message once, deferred once an attempt deferred it, the oldest's age; 0 when none waits",
        arguments: StorageBackend.allCases)
    func levels(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        #expect(
            try await queue.levels(now: Self.now)
                == OutboundQueueLevels(queuedMessages: 0, deferredMessages: 0, oldestQueuedSeconds: 0))
        _ = try await queue.record(
            Self.submission("S1", at: Self.now - 300, Self.queued("x@one.example", "y@two.example")), limits: [],
            now: Self.now - 300)
        _ = try await queue.record(
            Self.submission("S2", at: Self.now - 60, Self.queued("z@one.example")), limits: [], now: Self.now - 60)
        let held = [SubmissionRecipient(address: "w@three.example", status: .held(.outboundOff))]
        _ = try await queue.record(Self.submission("S3", at: Self.now - 900, held), limits: [], now: Self.now - 900)
        #expect(
            try await queue.levels(now: Self.now)
                == OutboundQueueLevels(queuedMessages: 2, deferredMessages: 0, oldestQueuedSeconds: 300),
            "a held recipient is not in the queue")
        // S1's one.example recipient deferred, its two.example one not tried yet: S1 counts once, as deferred.
        let claims = try await queue.claim(now: Self.now, limit: 10)
        let first = try #require(claims.first { $0.batch.messageID == "S1" && $0.batch.domain == "one.example" })
        _ = try await queue.complete(first, Self.outcome(first, .temporary("451 4.3.0 later")), now: Self.now)
        for claim in claims where claim != first {
            _ = try await queue.complete(claim, [], now: Self.now)  // released, no attempt
        }
        #expect(
            try await queue.levels(now: Self.now + 10)
                == OutboundQueueLevels(queuedMessages: 1, deferredMessages: 1, oldestQueuedSeconds: 310))
        for claim in try await queue.claim(now: Self.now + 3600, limit: 10) {
            _ = try await queue.complete(claim, Self.outcome(claim, .accepted("250 ok")), now: Self.now + 3600)
        }
        #expect(
            try await queue.levels(now: Self.now + 3600)
                == OutboundQueueLevels(queuedMessages: 0, deferredMessages: 0, oldestQueuedSeconds: 0))
    }

    @Test(
        "a record that fails part way leaves nothing: no submission, recipient, message or state",
        arguments: StorageBackend.allCases)
    func oneTransaction(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        // The message is the last row a record writes: refuse it.
        try test.database.refuseInserts(into: "outbound_contents")
        await #expect(throws: (any Error).self) {
            try await queue.record(Self.submission("S1", Self.queued("x@one.example")), limits: [], now: Self.now)
        }
        #expect(try Self.count("outbound_submissions", test.database) == 0)
        #expect(try Self.count("outbound_recipients", test.database) == 0)
        #expect(try Self.count("outbound_contents", test.database) == 0)
        #expect(try await queue.state(accountID: "A1") == "0")
        // Without a queued recipient there is no message to write: the same record succeeds.
        let held = [SubmissionRecipient(address: "x@one.example", status: .held(.outboundOff))]
        #expect(try await queue.record(Self.submission("S2", held), limits: [], now: Self.now).id == "S2")
    }

    @Test(
        "held reasons of many submissions in one read: each its first held recipient's, none for one without",
        arguments: StorageBackend.allCases)
    func heldReasons(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        let off = SubmissionRecipient(address: "x@one.example", status: .held(.outboundOff))
        let owner = SubmissionRecipient(address: "y@two.example", status: .held(.needsOwner))
        _ = try await queue.record(Self.submission("S1", [owner, off]), limits: [], now: Self.now)
        _ = try await queue.record(Self.submission("S2", [off]), limits: [], now: Self.now)
        _ = try await queue.record(Self.submission("S3", Self.queued("z@one.example")), limits: [], now: Self.now)
        #expect(
            try await queue.heldReasons(submissionIDs: ["S1", "S2", "S3", "S9", "S1"])
                == ["S1": .needsOwner, "S2": .outboundOff])
        #expect(try await queue.heldReasons(submissionIDs: []).isEmpty)
    }

    @Test(
        "two handles claiming at once never get the same recipient, and between them get all",
        arguments: StorageBackend.allCases)
    func leaseSharing(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let first = OutboundQueue(database: test.database)
        for index in 0..<24 {
            _ = try await first.record(
                Self.submission("S\(index)", Self.queued("r\(index)@d\(index % 3).example")), limits: [], now: Self.now)
        }
        let queues = [first, OutboundQueue(database: try test.another())]
        let recipients = try await withThrowingTaskGroup(of: [String].self) { group in
            for queue in queues {
                group.addTask {
                    var got: [String] = []
                    // Bounded: a claim that handed out leased recipients again would never run dry.
                    for _ in 0..<40 {
                        let claims = try await queue.claim(now: Self.now, limit: 3)
                        if claims.isEmpty { break }
                        got += claims.flatMap(\.batch.recipients)
                    }
                    return got
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(recipients.count == 24)
        #expect(Set(recipients).count == 24)
    }

    @Test(
        "a deferral waits the next delay; past the list's end the last delay repeats",
        arguments: StorageBackend.allCases)
    func retrySchedule(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(
            database: test.database, configuration: Self.configuration { $0.retrySeconds = [60, 120] }, jitter: { 0 })
        _ = try await queue.record(Self.submission("S1", Self.queued("x@one.example")), limits: [], now: Self.now)
        var now = Self.now
        for (attempt, delay) in [(1, 60), (2, 120), (3, 120), (4, 120)] as [(Int, Int64)] {
            let claim = try #require(try await queue.claim(now: now, limit: 1).first)
            #expect(claim.batch.attempts == attempt - 1)
            let done = try await queue.complete(claim, Self.outcome(claim, .temporary("451 4.3.0 try later")), now: now)
            #expect(done.deferred.map(\.nextAttempt) == [now + delay])
            #expect(done.ended.isEmpty)
            #expect(try await queue.claim(now: now + delay - 1, limit: 1).isEmpty)
            now += delay
        }
        let record = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(record.recipients.map(\.status) == [.deferred("451 4.3.0 try later")])
        #expect(record.recipients.first?.smtpReply == "451 4.3.0 try later")
    }

    @Test(
        "a deferral once the message is past the queue lifetime bounces it",
        arguments: StorageBackend.allCases)
    func bounceAtMaxAge(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(
            database: test.database,
            configuration: Self.configuration {
                $0.retrySeconds = [500]
                $0.maxQueueSeconds = 1000
            }, jitter: { 0 })
        _ = try await queue.record(Self.submission("S1", Self.queued("x@one.example")), limits: [], now: Self.now)
        let early = try #require(try await queue.claim(now: Self.now + 499, limit: 1).first)
        #expect(
            try await queue.complete(early, Self.outcome(early, .temporary("421 4.4.2 busy")), now: Self.now + 999)
                .deferred.count == 1)
        let late = try #require(try await queue.claim(now: Self.now + 1499, limit: 1).first)
        let done = try await queue.complete(
            late, Self.outcome(late, .temporary("421 4.4.2 busy")), now: Self.now + 1500)
        #expect(done.deferred.isEmpty)
        #expect(done.ended.map(\.status.name) == ["failed"])
        #expect(done.ended.map(\.expired) == [true])
        #expect(done.ended.map(\.suppressed) == [false])
        let record = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(record.recipients.map(\.status.name) == ["failed"])
        #expect(try await queue.suppression(of: "x@one.example", now: Self.now + 1500) == nil)
    }

    @Test(
        "a completion after the lease ran out and another claim took the recipient records nothing",
        arguments: StorageBackend.allCases)
    func lostLease(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database, configuration: Self.configuration { $0.leaseSeconds = 100 })
        _ = try await queue.record(Self.submission("S1", Self.queued("x@one.example")), limits: [], now: Self.now)
        let stale = try #require(try await queue.claim(now: Self.now, limit: 1).first)
        #expect(try await queue.claim(now: Self.now + 99, limit: 1).isEmpty)
        let fresh = try #require(try await queue.claim(now: Self.now + 100, limit: 1).first)
        #expect(fresh.leaseToken != stale.leaseToken)
        let state = try await queue.state(accountID: "A1")
        let lost = try await queue.complete(
            stale, Self.outcome(stale, .permanent("550 5.1.1 unknown")), now: Self.now + 101)
        #expect(lost.leaseLost && lost.ended.isEmpty)
        #expect(try await queue.state(accountID: "A1") == state)
        #expect(try await queue.suppression(of: "x@one.example", now: Self.now + 101) == nil)
        #expect(try await queue.submissions(accountID: "A1", ids: ["S1"]).first?.recipients.map(\.status) == [.queued])
        let done = try await queue.complete(fresh, Self.outcome(fresh, .accepted("250 2.0.0 ok")), now: Self.now + 102)
        #expect(!done.leaseLost && done.ended.map(\.status.name) == ["delivered"])
    }

    @Test(
        "a 5.1.x failure suppresses the address: a new submission to it is refused at once until the time ends",
        arguments: StorageBackend.allCases)
    func suppression(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(
            database: test.database, configuration: Self.configuration { $0.suppressSeconds = 50 })
        _ = try await queue.record(
            Self.submission("S1", Self.queued("gone@one.example", "policy@one.example")), limits: [], now: Self.now)
        let claim = try #require(try await queue.claim(now: Self.now, limit: 1).first)
        let done = try await queue.complete(
            claim,
            [
                OutboundOutcome(recipient: "gone@one.example", status: .permanent("550 5.1.1 <gone@one.example>: no")),
                OutboundOutcome(recipient: "policy@one.example", status: .permanent("550 5.7.1 refused by policy")),
            ], now: Self.now)
        #expect(done.ended.map(\.suppressed) == [true, false])
        #expect(
            try await queue.suppression(of: "GONE@one.example", now: Self.now + 49)
                == "550 5.1.1 <gone@one.example>: no")
        let refused = try await queue.record(
            Self.submission("S2", at: Self.now + 10, Self.queued("Gone@one.example", "policy@one.example")), limits: [],
            now: Self.now + 10)
        #expect(refused.recipients.map(\.status.name) == ["failed", "queued"])
        #expect(refused.recipients[0].smtpReply.hasPrefix("550 5.1.1 <Gone@one.example> bounced"))
        #expect(try await queue.sentCount(sender: "a@local.test", since: Self.now + 10) == 1)  // suppressed not counted
        let later = try await queue.record(
            Self.submission("S3", Self.queued("gone@one.example")), limits: [], now: Self.now + 50)
        #expect(later.recipients.map(\.status.name) == ["queued"])
    }

    @Test(
        "a submission past a sender's limit is refused whole, saying when the limit frees",
        arguments: StorageBackend.allCases)
    func limits(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        let hourly = SendLimit(name: "hourly", count: 3, windowSeconds: 3600)
        _ = try await queue.record(Self.submission("S1", Self.queued("x@one.example")), limits: [hourly], now: Self.now)
        _ = try await queue.record(
            Self.submission("S2", at: Self.now + 10, Self.queued("y@one.example")), limits: [hourly], now: Self.now + 10
        )
        // Held and local recipients do not count.
        let notCounted = [
            SubmissionRecipient(address: "b@local.test", status: .delivered("250 ok")),
            SubmissionRecipient(address: "h@one.example", status: .held(.needsOwner)),
        ]
        _ = try await queue.record(
            Self.submission("S3", at: Self.now + 20, notCounted), limits: [hourly], now: Self.now + 20)
        let refusal = await #expect(throws: SendLimitReached.self) {
            try await queue.record(
                Self.submission("S4", at: Self.now + 30, Self.queued("p@one.example", "q@one.example")),
                limits: [hourly], now: Self.now + 30)
        }
        #expect(refusal?.limit == hourly)
        // 2 sent + 2 new - 3 = 1 must leave the window first: the oldest, S1, at its time + the hour.
        #expect(refusal?.freesAt == Self.now + 3600)
        #expect(try await queue.submissions(accountID: "A1", ids: ["S4"]).isEmpty)
        #expect(try await queue.sentCount(sender: "a@local.test", since: Self.now) == 2)
        // Another sender has a limit of their own.
        _ = try await queue.record(
            Self.submission(
                "S5", sender: "c@local.test", Self.queued("p@one.example", "q@one.example", "r@one.example")),
            limits: [hourly], now: Self.now + 30)
        // Once S1 is out of the window, S4 fits.
        let fits = try await queue.record(
            Self.submission("S4", at: Self.now + 3600, Self.queued("p@one.example", "q@one.example")),
            limits: [hourly], now: Self.now + 3600)
        #expect(fits.recipients.map(\.status.name) == ["queued", "queued"])
    }

    @Test(
        "a holder's limit counts every sender they answer for together, before and inside the record; others are apart",
        arguments: StorageBackend.allCases)
    func holderLimit(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        let perSender = SendLimit(name: "hourly", count: 3, windowSeconds: 3600)
        let perOwner = SendLimit(name: "hourly", count: 4, windowSeconds: 3600, scope: .holder)
        func submission(_ id: String, _ sender: String, holder: SubmissionHolder?, at: Int64, _ count: Int) -> NewSubmission {
            let recipients = (1...count).map {
                SubmissionRecipient(address: "r\($0)@one.example", status: .queued)
            }
            var made = Self.submission(id, sender: sender, at: at, recipients)
            made.holder = holder
            return made
        }
        // Two inboxes of one owner, two recipients each: the owner's four are taken though neither inbox's three are.
        _ = try await queue.record(
            submission("S1", "a@local.test", holder: .owner("o1"), at: Self.now, 2), limits: [perSender, perOwner],
            now: Self.now)
        _ = try await queue.record(
            submission("S2", "b@local.test", holder: .owner("o1"), at: Self.now + 10, 2), limits: [perSender, perOwner],
            now: Self.now + 10)
        let checked = await #expect(throws: SendLimitReached.self) {
            try await queue.checkLimits(
                [perSender, perOwner], sender: "c@local.test", holder: .owner("o1"), adding: 1, now: Self.now + 20)
        }
        #expect(checked?.limit == perOwner && checked?.freesAt == Self.now + 3600)
        let recorded = await #expect(throws: SendLimitReached.self) {
            try await queue.record(
                submission("S3", "c@local.test", holder: .owner("o1"), at: Self.now + 20, 1),
                limits: [perSender, perOwner], now: Self.now + 20)
        }
        #expect(recorded?.limit == perOwner)
        // Another owner's inbox, and an inbox nobody answers for, have only their own limits.
        _ = try await queue.record(
            submission("S4", "d@local.test", holder: .owner("o2"), at: Self.now + 20, 3), limits: [perSender, perOwner],
            now: Self.now + 20)
        _ = try await queue.record(
            submission("S5", "e@local.test", holder: nil, at: Self.now + 20, 3), limits: [perSender, perOwner],
            now: Self.now + 20)
        // Once S1 has left the window, the owner's next inbox fits again.
        let fits = try await queue.record(
            submission("S3", "c@local.test", holder: .owner("o1"), at: Self.now + 3600, 2), limits: [perSender, perOwner],
            now: Self.now + 3600)
        #expect(fits.recipients.map(\.status) == [.queued, .queued])
    }

    @Test(
        "EmailSubmission changes: created, then updated when a recipient's disposition moves, in pages",
        arguments: StorageBackend.allCases)
    func changes(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        #expect(try await queue.state(accountID: "A1") == "0")
        _ = try await queue.record(Self.submission("S1", Self.queued("x@one.example")), limits: [], now: Self.now)
        _ = try await queue.record(Self.submission("S2", Self.queued("y@two.example")), limits: [], now: Self.now)
        _ = try await queue.record(
            Self.submission("S9", account: "A2", Self.queued("y@two.example")), limits: [], now: Self.now)
        let all = try #require(try await queue.changes(accountID: "A1", since: "0", maxChanges: 10))
        #expect(all == SubmissionChanges(newState: "2", hasMoreChanges: false, created: ["S1", "S2"], updated: []))
        let page = try #require(try await queue.changes(accountID: "A1", since: "0", maxChanges: 1))
        #expect(page == SubmissionChanges(newState: "1", hasMoreChanges: true, created: ["S1"], updated: []))
        let claim = try #require(try await queue.claim(now: Self.now, limit: 1).first)
        #expect(claim.batch.messageID == "S1")
        _ = try await queue.complete(claim, Self.outcome(claim, .permanent("550 5.1.1 no")), now: Self.now)
        let moved = try #require(try await queue.changes(accountID: "A1", since: "2", maxChanges: 10))
        #expect(moved == SubmissionChanges(newState: "3", hasMoreChanges: false, created: [], updated: ["S1"]))
        #expect(try await queue.changes(accountID: "A1", since: "4", maxChanges: 10) == nil)
        #expect(try await queue.changes(accountID: "A1", since: "x", maxChanges: 10) == nil)
        #expect(try await queue.state(accountID: "A2") == "1")
    }

    @Test(
        "the operator lists the queue, makes messages due now, deletes one (an attempt under way then records nothing)",
        arguments: StorageBackend.allCases)
    func operatorCommands(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(
            database: test.database, configuration: Self.configuration { $0.retrySeconds = [600] }, jitter: { 0 })
        _ = try await queue.record(
            Self.submission("S1", Self.queued("x@one.example", "y@two.example")), limits: [], now: Self.now)
        _ = try await queue.record(
            Self.submission("S2", at: Self.now + 1, Self.queued("z@one.example")), limits: [], now: Self.now + 1)
        let listed = try await queue.list()
        #expect(listed.map(\.id) == ["S1", "S2"])
        #expect(listed[0].recipients.map(\.address) == ["x@one.example", "y@two.example"])
        #expect(listed[0].size == Self.content.count)
        for claim in try await queue.claim(now: Self.now + 1, limit: 10) {
            _ = try await queue.complete(claim, Self.outcome(claim, .temporary("450 4.2.0 later")), now: Self.now + 1)
        }
        #expect(try await queue.claim(now: Self.now + 2, limit: 10).isEmpty)
        #expect(try await queue.retryNow(id: "S2", now: Self.now + 2) == 1)
        #expect(try await queue.claim(now: Self.now + 2, limit: 10).map(\.batch.messageID) == ["S2"])
        #expect(try await queue.retryNow(id: nil, now: Self.now + 3) == 3)
        let underWay = try await queue.claim(now: Self.now + 3, limit: 10)
        #expect(underWay.map(\.batch.messageID) == ["S1", "S1"])
        #expect(try await queue.delete(.message("S1"), now: Self.now + 4) == 2)
        for claim in underWay {
            #expect(
                try await queue.complete(claim, Self.outcome(claim, .accepted("250 ok")), now: Self.now + 5).leaseLost)
        }
        let record = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(record.recipients.map(\.smtpReply) == [OutboundQueue.deletedReply, OutboundQueue.deletedReply])
        #expect(try await queue.list().map(\.id) == ["S2"])
        #expect(try await queue.delete(.message("S1"), now: Self.now + 6) == 0)
    }

    @Test(
        "a bulk delete takes a sender's, an owner's, a destination domain's or every waiting recipient and counts them",
        arguments: StorageBackend.allCases)
    func bulkDelete(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        var owned = Self.submission("S1", Self.queued("x@one.example", "y@two.example"))
        owned.holder = .owner("o1")
        _ = try await queue.record(owned, limits: [], now: Self.now)
        _ = try await queue.record(
            Self.submission("S2", sender: "B@local.test", Self.queued("z@one.example", "w@two.example")), limits: [],
            now: Self.now)
        _ = try await queue.record(
            Self.submission("S3", sender: "c@local.test", Self.queued("v@three.example")), limits: [], now: Self.now)
        #expect(try await queue.delete(.domain("TWO.example"), now: Self.now + 1) == 2)
        #expect(try await queue.delete(.sender("b@LOCAL.test"), now: Self.now + 1) == 1)
        // An owner is stored by SubmissionHolder's one key, the spelling submissions recorded before were stored with.
        let stored = try await test.database.read { connection in
            try connection.query("SELECT holder FROM outbound_submissions WHERE id = 'S1'", []).first?.text("holder")
        }
        #expect(stored == "owner:o1")
        #expect(try await queue.delete(.holder(.owner("o2")), now: Self.now + 1) == 0)
        #expect(try await queue.delete(.holder(.owner("o1")), now: Self.now + 1) == 1)
        #expect(try await queue.list().map(\.id) == ["S3"])
        #expect(try await queue.delete(.all, now: Self.now + 1) == 1)
        #expect(try await queue.list().isEmpty)
        #expect(try await queue.claim(now: Self.now + 2, limit: 10).isEmpty)
        let records = try await queue.submissions(accountID: "A1", ids: ["S1", "S2", "S3"])
        #expect(records.flatMap(\.recipients).allSatisfy { $0.smtpReply == OutboundQueue.deletedReply })
    }

    @Test(
        "the purge drops ended submissions past the record time and ended suppressions; waiting ones stay",
        arguments: StorageBackend.allCases)
    func purge(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database, configuration: Self.configuration { $0.suppressSeconds = 10 })
        _ = try await queue.record(Self.submission("S1", Self.queued("gone@one.example")), limits: [], now: Self.now)
        _ = try await queue.record(Self.submission("S2", Self.queued("x@two.example")), limits: [], now: Self.now)
        let claim = try #require(try await queue.claim(now: Self.now, limit: 1).first)
        #expect(claim.batch.messageID == "S1")
        _ = try await queue.complete(claim, Self.outcome(claim, .permanent("550 5.1.1 no")), now: Self.now)
        let later = Self.now + OutboundQueue.recordSeconds
        #expect(try test.database.writeSync { try OutboundQueue.purge($0, now: later - 1) } == 0)
        #expect(try await queue.submissions(accountID: "A1", ids: nil).map(\.id) == ["S1", "S2"])
        #expect(try test.database.writeSync { try OutboundQueue.purge($0, now: later + 1) } == 1)
        #expect(try await queue.submissions(accountID: "A1", ids: nil).map(\.id) == ["S2"])  // S2 still waits
        #expect(try Self.count("outbound_recipients", test.database) == 1)
        #expect(try Self.count("outbound_suppressions", test.database) == 0)
    }

    @Test(
        "domains that took mail over TLS: noted (in any case), seen by another handle, forgotten by tls-reset",
        arguments: StorageBackend.allCases)
    func secureDomains(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        let other = OutboundQueue(database: test.database)
        #expect(try await queue.wasDeliveredOverTLS("dest.example") == false)
        try await queue.recordDeliveryOverTLS("Dest.Example", now: Self.now)
        try await queue.recordDeliveryOverTLS("dest.example", now: Self.now + 5)
        #expect(try await other.wasDeliveredOverTLS("dest.example"))
        #expect(try await other.wasDeliveredOverTLS("elsewhere.example") == false)
        #expect(try Self.count("outbound_tls_domains", test.database) == 1)
        #expect(try await other.forgetDeliveryOverTLS("DEST.example"))
        #expect(try await queue.wasDeliveredOverTLS("dest.example") == false)
        #expect(try await other.forgetDeliveryOverTLS("dest.example") == false)
    }

    @Test(
        "a recipient still deferred past the delay-notice time is returned once for its notice; 0 sends none",
        arguments: StorageBackend.allCases)
    func delayNotice(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(
            database: test.database,
            configuration: Self.configuration {
                $0.retrySeconds = [60]
                $0.delayNoticeSeconds = 600
                $0.maxQueueSeconds = 3600
            })
        _ = try await queue.record(
            Self.submission("S1", Self.queued("later@one.example", "ok@one.example")), limits: [], now: Self.now)
        func attempt(at now: Int64, _ outcomes: (OutboundClaim) -> [OutboundOutcome]) async throws
            -> OutboundCompletion
        {
            let claim = try #require(try await queue.claim(now: now, limit: 10).first)
            return try await queue.complete(claim, outcomes(claim), now: now)
        }
        // Deferred before the notice time: no notice.
        let early = try await attempt(at: Self.now) { Self.outcome($0, .temporary("450 4.2.0 busy")) }
        #expect(early.deferred.count == 2 && early.delayed.isEmpty)
        // Past it: one notice for each recipient still deferred (the delivered one is not), until the lifetime ends.
        let late = try await attempt(at: Self.now + 600) { _ in
            [
                OutboundOutcome(recipient: "later@one.example", status: .temporary("450 4.2.0 busy")),
                OutboundOutcome(recipient: "ok@one.example", status: .accepted("250 ok")),
            ]
        }
        #expect(
            late.delayed == [
                OutboundCompletion.Delayed(
                    recipient: "later@one.example", status: .temporary("450 4.2.0 busy"), remoteHost: nil,
                    willRetryUntil: Self.now + 3600)
            ])
        // Deferred again, by another handle on the same database (another instance): no second notice.
        let again = OutboundQueue(database: test.database, configuration: queue.configuration)
        let claim = try #require(try await again.claim(now: Self.now + 700, limit: 10).first)
        let later = try await again.complete(
            claim, Self.outcome(claim, .temporary("450 4.2.0 busy")), now: Self.now + 700)
        #expect(later.deferred.count == 1 && later.delayed.isEmpty)

        let off = OutboundQueue(
            database: test.database, configuration: Self.configuration { $0.delayNoticeSeconds = 0 })
        _ = try await off.record(Self.submission("S2", Self.queued("x@two.example")), limits: [], now: Self.now)
        let claims = try await off.claim(now: Self.now + 10_000, limit: 10)
        let claimed = try #require(claims.first { $0.batch.messageID == "S2" })
        let none = try await off.complete(
            claimed, Self.outcome(claimed, .temporary("450 4.2.0 busy")), now: Self.now + 10_000)
        #expect(none.deferred.count == 1 && none.delayed.isEmpty)
    }

    @Test(
        "a dead instance's claim comes back after the short lease (60 s by default); a renewed one does not",
        arguments: StorageBackend.allCases)
    func shortLease(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let dead = OutboundQueue(database: test.database)
        let other = OutboundQueue(database: test.database)
        _ = try await dead.record(Self.submission("S1", Self.queued("x@one.example")), limits: [], now: Self.now)
        _ = try await dead.record(Self.submission("S2", Self.queued("y@two.example")), limits: [], now: Self.now)
        let claims = try await dead.claim(now: Self.now, limit: 10)
        #expect(claims.count == 2)
        #expect(try await other.claim(now: Self.now + 59, limit: 10).isEmpty)
        // S2's attempt is alive: its lease moves on; S1's instance died.
        let live = try #require(claims.first { $0.batch.messageID == "S2" })
        #expect(try await dead.renew(live, now: Self.now + 50))
        let taken = try await other.claim(now: Self.now + 60, limit: 10)
        #expect(taken.map(\.batch.messageID) == ["S1"])
        #expect(try await other.claim(now: Self.now + 109, limit: 10).isEmpty)
        let done = try await dead.complete(live, Self.outcome(live, .accepted("250 2.0.0 ok")), now: Self.now + 100)
        #expect(!done.leaseLost)
        #expect(try await dead.renew(live, now: Self.now + 101) == false)  // nothing left to hold
    }

    @Test("SQLite, one instance: every lease is released at start; the recipients are due as they were")
    func releaseAtStart() async throws {
        let test = try StorageBackend.sqlite.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        #expect(queue.isSingleInstance)
        _ = try await queue.record(Self.submission("S1", Self.queued("x@one.example")), limits: [], now: Self.now)
        _ = try await queue.claim(now: Self.now, limit: 10)
        #expect(try await queue.claim(now: Self.now + 1, limit: 10).isEmpty)
        #expect(try await queue.releaseAllLeases() == 1)
        #expect(try await queue.claim(now: Self.now + 1, limit: 10).map(\.batch.messageID) == ["S1"])
    }

    @Test(
        "every retry delay is moved by the injected jitter, at most 10% either way",
        arguments: StorageBackend.allCases)
    func retryJitter(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let draws = Mutex<[Double]>([1, -1, 0.5, 7])
        let queue = OutboundQueue(
            database: test.database, configuration: Self.configuration { $0.retrySeconds = [1000] },
            jitter: { draws.withLock { $0.removeFirst() } })
        var next: [Int64] = []
        for index in 0..<4 {
            _ = try await queue.record(
                Self.submission("S\(index)", Self.queued("x\(index)@one.example")), limits: [], now: Self.now)
            let claim = try #require(try await queue.claim(now: Self.now, limit: 1).first)
            let done = try await queue.complete(claim, Self.outcome(claim, .temporary("451 4.3.0 later")), now: Self.now)
            next += done.deferred.map(\.nextAttempt)
        }
        // +10%, -10%, +5%, and a draw past 1 is held to +10%.
        #expect(next == [Self.now + 1100, Self.now + 900, Self.now + 1050, Self.now + 1100])
        #expect(OutboundQueueConfiguration().retryDelay(afterAttempt: 1, jitter: -1) == 270)
    }

    @Test(
        "a refused sender suppresses no recipient: a 5.1.x to MAIL FROM, or the client refusing the sender address",
        arguments: StorageBackend.allCases)
    func refusedSenderSuppressesNoOne(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        _ = try await queue.record(
            Self.submission("S1", Self.queued("a@one.example", "b@one.example")), limits: [], now: Self.now)
        let claim = try #require(try await queue.claim(now: Self.now, limit: 1).first)
        let done = try await queue.complete(
            claim,
            [
                OutboundOutcome(
                    recipient: "a@one.example",
                    status: .permanent("553 5.1.8 <a@local.test>: sender domain does not exist", about: .sender)),
                OutboundOutcome(
                    recipient: "b@one.example", status: .failed(.client(.refused(.invalidAddress, address: .sender)))),
            ], now: Self.now)
        #expect(done.ended.map(\.status.name) == ["failed", "failed"])
        #expect(done.ended.map(\.suppressed) == [false, false])
        #expect(try await queue.suppression(of: "a@one.example", now: Self.now + 1) == nil)
        #expect(try await queue.suppression(of: "b@one.example", now: Self.now + 1) == nil)
        #expect(try Self.count("outbound_suppressions", test.database) == 0)
        let again = try await queue.record(
            Self.submission("S2", Self.queued("a@one.example", "b@one.example")), limits: [], now: Self.now + 1)
        #expect(again.recipients.map(\.status) == [.queued, .queued])
    }

    @Test("the suppression rule: class 5, subject 1, about the recipient only")
    func condemnsRecipientAddress() {
        func remote(_ line: String, _ role: AddressRole?) -> DeliveryFailure {
            .remote(SMTPReply(line: line), about: role)
        }
        #expect(remote("550 5.1.1 <x@example.com>: user unknown", .recipient).condemnsRecipientAddress)
        let nullMX = SMTPReply(556, (5, 1, 10), "null MX")
        #expect(DeliveryFailure.local(nullMX, about: .recipient).condemnsRecipientAddress)
        #expect(!remote("553 5.1.7 bad sender", .sender).condemnsRecipientAddress)
        #expect(!remote("550 5.1.1 user unknown", nil).condemnsRecipientAddress)  // to DATA: about the message
        #expect(!remote("550 5.7.1 policy", .recipient).condemnsRecipientAddress)
        #expect(!remote("550 no such user", .recipient).condemnsRecipientAddress)
        #expect(!remote("450 4.1.1 try later", .recipient).condemnsRecipientAddress)
        #expect(!DeliveryFailure.client(.refused(.invalidAddress, address: .sender)).condemnsRecipientAddress)
        #expect(DeliveryFailure.client(.refused(.invalidAddress, address: .recipient)).condemnsRecipientAddress)
        #expect(SMTPReply(code: 550, enhanced: EnhancedStatusCode(parsing: "4.1.1"), text: "x").enhanced == nil)
    }
}
