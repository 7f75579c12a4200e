import Logging
import MailDelivery
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import ServiceLifecycle
import Storage
import Synchronization
import Testing

/// The dispatcher over a recording transport: it delivers what a record queues, hands the ended recipients on,
/// retries a deferral once the clock passes its delay, and runs at most `perDestination` batches at once per domain.
@Suite("Outbound dispatcher", .timeLimit(.minutes(1)))
struct OutboundDispatcherTests {
    static let now: Int64 = 1_795_600_000

    static func record(_ queue: OutboundQueue, _ id: String, _ recipients: [String], at now: Int64) async throws {
        _ = try await queue.record(
            NewSubmission(
                id: id, accountID: "A1", sender: "a@local.test", emailID: "M" + id, threadID: "T" + id, sendAt: now,
                recipients: recipients.map { SubmissionRecipient(address: $0, status: .queued) },
                content: Array("Subject: \(id)\r\n\r\nhi\r\n".utf8)),
            limits: [], now: now)
    }

    /// A queue whose deferrals are due again 120 s later, exactly.
    static func retrying(_ database: any SQLDatabase) -> OutboundQueue {
        var configuration = OutboundQueueConfiguration()
        configuration.retrySeconds = [120]
        return OutboundQueue(database: database, configuration: configuration, jitter: { 0 })
    }

    /// A dispatcher over `transport` that looks at the queue every 20 ms, running on a task of its own (cancel it and
    /// await its value to stop it once the attempts in flight are recorded).
    static func running(
        _ queue: OutboundQueue, _ transport: some OutboundTransport, clock: @escaping @Sendable () -> Int64
    ) -> Task<Void, Never> {
        var settings = OutboundDispatcher.Settings()
        settings.idleInterval = .milliseconds(20)
        let dispatcher = OutboundDispatcher(
            queue: queue, transport: transport, settings: settings, clock: clock,
            logger: Logger(label: "outbound.tests"))
        return Task { await dispatcher.run() }
    }

    @Test(
        "a sender who may no longer send outside (an approval withdrawn) has its deferred mail held at the next attempt",
        arguments: StorageBackend.allCases)
    func heldAtNextAttempt(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        let queue = Self.retrying(test.database)
        let transport = RecordingTransport()
        var settings = OutboundDispatcher.Settings()
        settings.idleInterval = .milliseconds(20)
        let standing = Mutex<HeldReason?>(nil)
        let dispatcher = OutboundDispatcher(
            queue: queue, transport: transport, settings: settings, clock: { clock.now },
            logger: Logger(label: "outbound.tests"), senderCheck: { _ in standing.withLock { $0 } })
        let running = Task { await dispatcher.run() }
        try await Self.record(queue, "S1", ["later@two.example"], at: Self.now)
        try await waitUntil("the first attempt deferred") { try await queue.nextDue() == Self.now + 120 }
        #expect(transport.batches.count == 1)
        // `postern owner approve --withdraw`: the sender may no longer send outside.
        standing.withLock { $0 = .awaitingApproval }
        clock.advance(120)
        try await waitUntil("the retry held") {
            try await queue.heldReasons(submissionIDs: ["S1"]) == ["S1": .awaitingApproval]
        }
        #expect(transport.batches.count == 1, "nothing sent after the withdrawal")
        #expect(try await queue.nextDue() == nil)
        running.cancel()
        await running.value
    }

    @Test(
        "what a record queues is delivered and ended; a deferral is retried once the clock passes its delay",
        arguments: StorageBackend.allCases)
    func deliversAndRetries(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        let queue = Self.retrying(test.database)
        let transport = RecordingTransport()
        let (ended, endedSink) = AsyncStream.makeStream(of: (String, OutboundCompletion.Ended).self)
        var settings = OutboundDispatcher.Settings()
        settings.idleInterval = .milliseconds(20)
        let results = Mutex<[String: [OutboundDispatcher.Attempt.Result]]>([:])
        let dispatcher = OutboundDispatcher(
            queue: queue, transport: transport, settings: settings, clock: { clock.now },
            logger: Logger(label: "outbound.tests"),
            onEnded: { claim, recipients in
                for recipient in recipients { endedSink.yield((claim.batch.messageID, recipient)) }
            },
            onAttempt: { attempt in results.withLock { $0[attempt.batch.domain, default: []].append(attempt.result) } })
        let running = Task { await dispatcher.run() }
        try await Self.record(queue, "S1", ["ok@one.example", "gone@one.example", "later@two.example"], at: Self.now)
        var iterator = ended.makeAsyncIterator()
        var first: [String: OutboundCompletion.Ended] = [:]
        for _ in 0..<2 {
            let (message, recipient) = try #require(await iterator.next())
            #expect(message == "S1")
            first[recipient.recipient] = recipient
        }
        #expect(first["ok@one.example"]?.status.name == "delivered")
        #expect(first["gone@one.example"]?.status.name == "failed")
        #expect(first["gone@one.example"]?.suppressed == true)
        // The deferral is due at now + 120: nothing more until the clock gets there. It is recorded first (the two
        // domains' attempts run apart: moving the clock before two.example's completion would move its retry too).
        try await waitUntil("two.example's deferral recorded") { try await queue.nextDue() == Self.now + 120 }
        clock.advance(120)
        let (message, retried) = try #require(await iterator.next())
        #expect(message == "S1" && retried.recipient == "later@two.example" && retried.status.name == "delivered")
        running.cancel()
        await running.value
        let domains = transport.batches.map(\.domain)
        #expect(domains.sorted() == ["one.example", "two.example", "two.example"])
        #expect(
            transport.batches.first { $0.domain == "one.example" }?.recipients == [
                "ok@one.example", "gone@one.example",
            ])
        let record = try #require(try await queue.submissions(accountID: "A1", ids: ["S1"]).first)
        #expect(record.recipients.map(\.status.name) == ["delivered", "failed", "delivered"])
        #expect(try await queue.nextDue() == nil)
        // Each attempt counted once: one.example's mixed, two.example's deferred, then delivered.
        #expect(results.withLock { $0 } == ["one.example": [.partial], "two.example": [.deferred, .delivered]])
    }

    @Test("an attempt's result: alike outcomes name it, mixed ones are partial, nothing recorded is unrecorded")
    func attemptResults() {
        let batch = OutboundBatch(
            messageID: "S1", sender: "a@local.test", domain: "one.example", recipients: ["x@one.example"],
            content: [], attempts: 0)
        func ended(_ status: RecipientStatus) -> OutboundCompletion.Ended {
            OutboundCompletion.Ended(
                recipient: "x@one.example", status: status, remoteHost: nil, expired: false, suppressed: false)
        }
        func result(_ ended: [OutboundCompletion.Ended], deferred: Int = 0, leaseLost: Bool = false)
            -> OutboundDispatcher.Attempt.Result
        {
            let later = Array(repeating: (recipient: "y@one.example", nextAttempt: Int64(1)), count: deferred)
            return OutboundDispatcher.Attempt(
                batch: batch, completion: OutboundCompletion(ended: ended, deferred: later, leaseLost: leaseLost)
            ).result
        }
        #expect(result([ended(.accepted("250 2.0.0 ok")), ended(.accepted("250 2.0.0 ok"))]) == .delivered)
        #expect(result([], deferred: 2) == .deferred)
        #expect(result([ended(.permanent("550 5.7.1 no"))]) == .failed)
        #expect(result([ended(.accepted("250 2.0.0 ok"))], deferred: 1) == .partial)
        #expect(result([ended(.accepted("250 2.0.0 ok")), ended(.permanent("550 5.7.1 no"))]) == .partial)
        #expect(result([]) == .unrecorded)
        #expect(result([ended(.accepted("250 2.0.0 ok"))], leaseLost: true) == .unrecorded)
        #expect(OutboundDispatcher.Attempt(batch: batch, completion: nil).result == .unrecorded)
    }

    @Test(
        "at most perDestination batches run at once to one domain; other domains are not held up",
        arguments: [StorageBackend.sqlite])
    func perDestination(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        var configuration = OutboundQueueConfiguration()
        configuration.perDestination = 2
        configuration.messagesPerConnection = 1
        let queue = OutboundQueue(database: test.database, configuration: configuration)
        for index in 0..<5 { try await Self.record(queue, "A\(index)", ["ok\(index)@busy.example"], at: Self.now) }
        for index in 0..<2 { try await Self.record(queue, "B\(index)", ["ok\(index)@other.example"], at: Self.now) }
        let transport = RecordingTransport(holds: true)
        let dispatcher = OutboundDispatcher(
            queue: queue, transport: transport, clock: { Self.now }, logger: Logger(label: "outbound.tests"))
        let running = Task { await dispatcher.run() }
        // Two to each domain start; the other three to busy.example wait for a slot.
        await transport.started(4)
        #expect(transport.mostAtOnce == ["busy.example": 2, "other.example": 2])
        var released = 0
        while released < 7 {
            if transport.releaseOne() { released += 1 } else { await Task.yield() }
        }
        running.cancel()
        await running.value
        #expect(transport.batches.count == 7)
        #expect(transport.mostAtOnce == ["busy.example": 2, "other.example": 2])
        #expect(try await queue.list().isEmpty)
    }

    @Test(
        "connection reuse: due batches for one domain share connections, at most messagesPerConnection each",
        arguments: [StorageBackend.sqlite])
    func reuse(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        var configuration = OutboundQueueConfiguration()
        configuration.perDestination = 2
        configuration.messagesPerConnection = 4
        let queue = OutboundQueue(database: test.database, configuration: configuration)
        for index in 0..<10 { try await Self.record(queue, "R\(index)", ["ok@busy.example"], at: Self.now) }
        try await Self.record(queue, "X", ["ok@other.example"], at: Self.now)
        let transport = RecordingTransport()
        let dispatcher = OutboundDispatcher(
            queue: queue, transport: transport, clock: { Self.now }, logger: Logger(label: "outbound.tests"))
        let running = Task { await dispatcher.run() }
        try await waitUntil("every batch is delivered") { try await queue.list().isEmpty }
        running.cancel()
        await running.value
        let busy = transport.connections.filter { $0.first?.hasPrefix("R") == true }
        // Ten batches waiting at once: 4 + 4 + 2 over the domain's two connections, never a connection each.
        #expect(busy.map(\.count).sorted() == [2, 4, 4])
        let waiting: Set<String> = Set((0..<10).map { "R\($0)" })
        #expect(Set(busy.flatMap { $0 }) == waiting)
        #expect(transport.connections.contains(["X"]))
        #expect(transport.batches.count == 11)
    }

    @Test(
        "a batch is recorded as soon as its outcome is final, while its connection goes on with the next",
        arguments: StorageBackend.allCases)
    func recordsEachBatchAsItEnds(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        var configuration = OutboundQueueConfiguration()
        configuration.perDestination = 1
        let queue = OutboundQueue(database: test.database, configuration: configuration)
        try await Self.record(queue, "S1", ["ok@one.example"], at: Self.now)
        try await Self.record(queue, "S2", ["ok@one.example"], at: Self.now)
        let transport = RecordingTransport(holds: true)
        let running = Self.running(queue, transport, clock: { Self.now })
        await transport.started(1)
        await transport.releaseNext()  // S1 delivered; the connection goes on to S2, which is held
        // S1's delivery is recorded while S2 is still on the wire: a crash now would not send S1 again.
        try await waitUntil("S1 recorded before the connection ends") {
            try await queue.list().map(\.id) == ["S2"]
        }
        #expect(transport.connections == [["S1", "S2"]])
        await transport.releaseNext()
        try await waitUntil("S2 recorded") { try await queue.list().isEmpty }
        running.cancel()
        await running.value
    }

    @Test(
        "a lease is renewed while its attempt runs: another instance cannot take the batch after the first lease's end",
        arguments: StorageBackend.allCases)
    func renewsWhileAttempting(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        var configuration = OutboundQueueConfiguration()
        configuration.leaseSeconds = 3  // renewed every second of real time
        let queue = OutboundQueue(database: test.database, configuration: configuration)
        try await Self.record(queue, "S1", ["ok@one.example"], at: Self.now)
        let transport = RecordingTransport(holds: true)
        let running = Self.running(queue, transport, clock: { clock.now })
        await transport.started(1)
        #expect(try await queue.nextDue() == Self.now + 3)  // claimed with one lease
        clock.advance(2)
        // A renewal during the attempt moves the lease to the clock's now + 3.
        try await waitUntil("the lease renewed during the attempt") { try await queue.nextDue() == Self.now + 5 }
        clock.advance(2)  // past the first lease's end, inside the renewed one
        #expect(try await queue.claim(now: clock.now, limit: 10).isEmpty)
        await transport.releaseNext()
        try await waitUntil("the batch delivered and recorded") { try await queue.list().isEmpty }
        running.cancel()
        await running.value
        #expect(transport.batches.map(\.messageID) == ["S1"])
    }

    @Test(
        "a dispatcher on SQLite releases a dead process's leases at start; on PostgreSQL another instance may hold them",
        arguments: StorageBackend.allCases)
    func releasesLeasesAtStart(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        try await Self.record(queue, "S1", ["ok@one.example"], at: Self.now)
        #expect(try await queue.claim(now: Self.now, limit: 10).count == 1)  // the process that held it is gone
        let transport = RecordingTransport()
        let running = Self.running(queue, transport, clock: { Self.now })
        switch backend {
        case .sqlite:
            try await waitUntil("the released batch delivered") { try await queue.list().isEmpty }
            #expect(transport.batches.map(\.messageID) == ["S1"])
        case .postgres:
            try await Task.sleep(for: .milliseconds(200))
            #expect(transport.batches.isEmpty)
        }
        running.cancel()
        await running.value
    }

    @Test(
        "a service group runs the dispatcher: its graceful shutdown ends run() once the attempt in flight is recorded",
        arguments: StorageBackend.allCases)
    func serviceGroup(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let queue = OutboundQueue(database: test.database)
        try await Self.record(queue, "G1", ["ok@held.example"], at: Self.now)
        let transport = RecordingTransport(holds: true)
        let logger = Logger(label: "outbound.tests")
        let dispatcher = OutboundDispatcher(queue: queue, transport: transport, clock: { Self.now }, logger: logger)
        let group = ServiceGroup(services: [dispatcher], logger: logger)
        let running = Task { try await group.run() }
        await transport.started(1)
        await group.triggerGracefulShutdown()
        await transport.releaseNext()  // started(1) may return before the delivery holds: releaseOne could miss it
        try await running.value
        #expect(try await queue.list().isEmpty, "the attempt in flight was recorded before run() returned")
        #expect(transport.batches.map(\.domain) == ["held.example"])
    }
}
