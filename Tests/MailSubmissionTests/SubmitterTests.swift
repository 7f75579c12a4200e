import MailDelivery
import MailStore
import MailSubmission
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Testing

/// The one owner of a submission on both backends: where each recipient's copy goes, each refusal (nothing sent),
/// and the limit race between the admission and the record.
@Suite("Submitter", .timeLimit(.minutes(2)))
struct SubmitterTests {
    typealias Harness = SubmitterHarness
    static let carol = "carol@far.example"

    /// A recorded status in a word (and a held one's reason).
    static func word(_ status: RecordedStatus) -> String {
        switch status {
        case .queued: "queued"
        case .held(let reason): "held " + reason.code
        case .delivered: "delivered"
        case .deferred: "deferred"
        case .failed: "failed"
        }
    }

    /// The refusal `body` throws; a failed expectation when it throws none or another error.
    static func refusal(_ body: () async throws -> Submitted) async -> SubmissionRefusal? {
        await #expect(throws: SubmissionRefusal.self) { _ = try await body() }
    }

    @Test(
        "local recipients get the message, outside ones are queued, repeats dropped, all in one recorded submission",
        arguments: StorageBackend.allCases)
    func deliveredAndQueued(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let raw = Harness.message(to: "bob@agents.test, carol@far.example")
        let submitted = try await harness.submit(raw, to: [Harness.bob, Self.carol, "BOB@agents.test"])
        #expect([submitted.delivered, submitted.undelivered, submitted.kept, submitted.queued] == [1, 0, 0, 1])
        #expect(submitted.heldReason == nil)
        #expect(submitted.envelope == SubmissionEnvelope(mailFrom: Harness.ada, rcptTo: [Harness.bob, Self.carol]))
        #expect(submitted.record.recipients.map(\.address) == [Harness.bob, Self.carol])
        #expect(submitted.record.recipients.map { Self.word($0.status) } == ["delivered", "queued"])
        #expect(submitted.record.id.hasPrefix("S"))
        // The directory names no account for ada: the submission is kept under her address.
        #expect(submitted.record.accountID == Harness.ada)
        #expect(try await harness.recorded().map(\.id) == [submitted.record.id])
        #expect(try await harness.store.page(address: Harness.bob, page: 1).count == 1)
        #expect(try await harness.queue.list().count == 1)
        #expect(try await harness.store.outbox().isEmpty)
    }

    @Test(
        "held outside recipients are kept in the outbox and recorded held, or the whole submission is refused held",
        arguments: StorageBackend.allCases)
    func held(_ backend: StorageBackend) async throws {
        let off = try Harness(backend, sendsOutside: false)
        let kept = try await off.submit(Harness.message(), to: [Self.carol])
        #expect([kept.delivered, kept.kept, kept.queued] == [0, 1, 0])
        #expect(kept.heldReason == .outboundOff)
        #expect(kept.record.recipients.map { Self.word($0.status) } == ["held outbound_off"])
        #expect(try await off.store.outbox().map(\.recipients) == [[Self.carol]])

        let unowned = try Harness(backend, sender: .notAccountable)
        let refused = await Self.refusal {
            try await unowned.submit(Harness.message(), to: [Harness.bob, Self.carol], whenHeld: .refuse)
        }
        #expect(refused == .held(.needsOwner))
        #expect(try await unowned.store.outbox().isEmpty)
        #expect(try await unowned.recorded().isEmpty)
        #expect(try await unowned.store.page(address: Harness.bob, page: 1).isEmpty, "nothing delivered here either")
    }

    @Test(
        "only a message written in the sender's own mailbox is submitted: never a received one, another's or none",
        arguments: StorageBackend.allCases)
    func notWrittenBySender(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let raw = Harness.message()
        let received = try await harness.received(raw)
        #expect(
            await Self.refusal { try await harness.submit(raw, id: received, to: [Self.carol]) }
                == .notWrittenBySender(messageID: received))
        let bobs = try await harness.written(raw, in: Harness.bob)
        #expect(
            await Self.refusal { try await harness.submit(raw, id: bobs, to: [Self.carol]) }
                == .notWrittenBySender(messageID: bobs))
        #expect(
            await Self.refusal { try await harness.submit(raw, id: "no-such-id", to: [Self.carol]) }
                == .notWrittenBySender(messageID: "no-such-id"))
        #expect(try await harness.recorded().isEmpty)
    }

    @Test("a sender that is no mailbox here any more sends nothing", arguments: StorageBackend.allCases)
    func senderNotLocal(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let gone = "support@released.test"
        let raw = Harness.message(from: gone)
        let id = try await harness.written(raw, in: gone)
        #expect(
            await Self.refusal { try await harness.submit(raw, id: id, to: [Harness.bob], sender: gone) }
                == .senderNotLocal(gone))
        #expect(try await harness.store.page(address: Harness.bob, page: 1).isEmpty)
    }

    @Test(
        "From, Sender, Resent-* name the sender, Reply-To no other mailbox here, MAIL FROM the sender; an unreadable header is refused",
        arguments: StorageBackend.allCases)
    func originators(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let cases: [([UInt8], SubmissionRefusal.OriginatorField)] = [
            (Harness.message(from: Harness.bob), .from),
            (Harness.message(header: "Sender: bob@agents.test\r\n"), .sender),
            (Harness.message(header: "Resent-From: bob@agents.test\r\n"), .resent),
            (Harness.message(header: "Resent-Sender: bob@agents.test\r\n"), .resent),
            (Harness.message(header: "Reply-To: bob@agents.test\r\n"), .replyTo),
            (Harness.message(header: "Reply-To: someone-new@agents.test\r\n"), .replyTo),
        ]
        for (raw, field) in cases {
            #expect(
                await Self.refusal { try await harness.submit(raw, to: [Self.carol]) }
                    == .foreignOriginator(field, sender: Harness.ada), "\(field)")
        }
        let elsewhere = try await harness.submit(
            Harness.message(header: "Reply-To: help@far.example\r\n"), to: [Self.carol])
        #expect(elsewhere.queued == 1, "a Reply-To elsewhere is allowed")

        #expect(
            await Self.refusal { try await harness.submit(Harness.message(), to: [Self.carol], mailFrom: Harness.bob) }
                == .foreignMailFrom(sender: Harness.ada))
        let same = try await harness.submit(Harness.message(), to: [Self.carol], mailFrom: "ADA@agents.test")
        #expect(same.envelope.mailFrom == "ADA@agents.test", "MAIL FROM is compared as an address")

        // Stored readable, submitted with a bare CR in its header: who it is from cannot be read strictly.
        let stored = try await harness.written(Harness.message())
        let refused = await Self.refusal {
            try await harness.submit(
                Harness.message(header: "X-Note: a\rb\r\n"), id: stored, to: [Self.carol])
        }
        guard case .unreadableHeader = refused else {
            Issue.record("a bare CR in the header was \(String(describing: refused))")
            return
        }
        #expect(try await harness.recorded().count == 2)
    }

    @Test(
        "no recipient, or one that is no address or no mailbox here: refused, naming them, nothing delivered",
        arguments: StorageBackend.allCases)
    func recipients(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        #expect(await Self.refusal { try await harness.submit(Harness.message(), to: []) } == .noRecipients)
        #expect(
            await Self.refusal {
                try await harness.submit(
                    Harness.message(), to: [Harness.bob, "nobody@agents.test", Self.carol, "not an address"])
            } == .unknownRecipients(["not an address", "nobody@agents.test"]))
        #expect(try await harness.store.page(address: Harness.bob, page: 1).isEmpty)
        #expect(try await harness.recorded().isEmpty)
    }

    @Test(
        "past the size limit a message does not leave (tooLarge), though it may still go to a mailbox here",
        arguments: StorageBackend.allCases)
    func tooLarge(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend, maxMessageBytes: 1024)
        let raw = Harness.message(body: String(repeating: "x", count: 2000))
        let id = try await harness.written(raw)
        #expect(
            await Self.refusal { try await harness.submit(raw, id: id, to: [Harness.bob, Self.carol]) }
                == .tooLarge(maxBytes: 1024))
        #expect(try await harness.store.page(address: Harness.bob, page: 1).isEmpty)
        #expect(try await harness.submit(raw, id: id, to: [Harness.bob]).delivered == 1)
    }

    @Test(
        "mail waiting in the queue counts against the sender's quota: past it, overQuota",
        arguments: StorageBackend.allCases)
    func overQuota(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let raw = Harness.message(body: String(repeating: "q", count: 400_000))
        let id = try await harness.written(raw)
        for index in 0..<2 { _ = try await harness.submit(raw, id: id, to: ["r\(index)@far.example"]) }
        #expect(
            await Self.refusal { try await harness.submit(raw, id: id, to: [Self.carol]) }
                == .overQuota(queuedBytes: Int64(raw.count * 2), quota: 1_000_000))
        #expect(try await harness.queue.list().count == 2)
    }

    @Test("past a send limit the admission refuses, naming the limit", arguments: StorageBackend.allCases)
    func limit(_ backend: StorageBackend) async throws {
        let hourly = SendLimit(name: "hourly", count: 2, windowSeconds: 3600)
        let harness = try Harness(backend, limits: [hourly])
        _ = try await harness.submit(Harness.message(), to: ["r1@far.example", "r2@far.example"])
        let refused = await Self.refusal { try await harness.submit(Harness.message(), to: [Harness.bob, Self.carol]) }
        guard case .limit(let reached) = refused else {
            Issue.record("past the limit: \(String(describing: refused))")
            return
        }
        #expect(reached.limit == hourly)
        #expect(try await harness.store.page(address: Harness.bob, page: 1).isEmpty, "refused before any delivery")
        // Local recipients alone are not counted.
        #expect(try await harness.submit(Harness.message(), to: [Harness.bob]).delivered == 1)
    }

    @Test(
        "the race: when the places the admission saw free are taken before the record, the record refuses with the limit and keeps nothing (no Sent copy, no local copy)",
        arguments: StorageBackend.allCases)
    func lostRace(_ backend: StorageBackend) async throws {
        let hourly = SendLimit(name: "hourly", count: 2, windowSeconds: 3600)
        let harness = try Harness(backend, limits: [hourly], ledger: { LateLimitLedger(queue: $0) })
        _ = try await harness.submit(Harness.message(), to: ["r1@far.example", "r2@far.example"])
        let refused = await Self.refusal {
            try await harness.submitKeepingInSent(Harness.message(), to: [Harness.bob, Self.carol])
        }
        guard case .limit(let reached) = refused else {
            Issue.record("a lost race: \(String(describing: refused))")
            return
        }
        #expect(reached.limit == hourly)
        #expect(try await harness.recorded().count == 1)
        #expect(try await harness.queue.list().count == 1)
        #expect(try await harness.store.page(address: Harness.ada, folder: .sent, page: 1).isEmpty)
        #expect(try await harness.store.page(address: Harness.bob, page: 1).isEmpty)
    }

    @Test(
        "concurrent submissions of one sender share its limit: exactly the limit's count is queued, the rest refused",
        arguments: StorageBackend.allCases, [false, true])
    func concurrentSubmissions(_ backend: StorageBackend, lateCheck: Bool) async throws {
        let hourly = SendLimit(name: "hourly", count: 3, windowSeconds: 3600)
        let harness = try Harness(
            backend, limits: [hourly], ledger: { lateCheck ? LateLimitLedger(queue: $0) : $0 as any SubmissionLedger })
        let raw = Harness.message()
        let id = try await harness.written(raw)
        let outcomes = await withTaskGroup(of: Result<Submitted, any Error>.self) { group in
            for index in 0..<8 {
                group.addTask {
                    do {
                        return .success(try await harness.submit(raw, id: id, to: ["r\(index)@far.example"]))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let refusals = outcomes.compactMap { outcome -> SubmissionRefusal? in
            guard case .failure(let error) = outcome else { return nil }
            return error as? SubmissionRefusal
        }
        #expect(outcomes.count { if case .success = $0 { true } else { false } } == 3)
        #expect(refusals.count == 5)
        #expect(refusals.allSatisfy { if case .limit(let reached) = $0 { reached.limit == hourly } else { false } })
        #expect(try await harness.recorded().count == 3)
        #expect(try await harness.queue.list().count == 3)
    }
}
