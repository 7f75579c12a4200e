import JMAP
import JSON
import MailDelivery
import OutboundQueue
import PosternTestSupport
import Testing

/// `EmailSubmission/set` recording through the outbound queue, and `EmailSubmission/get`, `/changes` and `/query`
/// reading what the queue made of each recipient.
@Suite("JMAP submission through the outbound queue")
struct JMAPOutboundSubmissionTests {
    static func harness(
        _ backend: StorageBackend, sendsOutside: Bool = true, limits: [SendLimit] = [],
        sender: OutsideSender = .allowed(holder: nil),
        maxMessageBytes: Int = 25 * 1024 * 1024
    ) throws -> JMAPServiceHarness {
        try JMAPServiceHarness(backend, outbound: { test, changes in
            JMAPOutbound(
                ledger: OutboundQueue(database: test.database, onSubmissionChange: { changes.announce([$0]) }),
                sendsOutside: sendsOutside, limits: limits, maxMessageBytes: maxMessageBytes, sender: { _ in sender })
        })
    }

    static func draft(to recipients: [String], body: String = "Hello") -> String {
        let to = recipients.map { ##"{"email":"\##($0)"}"## }.joined(separator: ",")
        return
            ##"["Email/set",{"accountId":"acct-ada","create":{"d1":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"to":[\##(to)],"subject":"Hi","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"\##(body)"}}}}},"c0"]"##
    }

    static let submit = ##"["EmailSubmission/set",{"accountId":"acct-ada","create":{"s1":{"emailId":"#d1"}}},"c1"]"##

    @Test(
        "outside recipients are queued; get and changes follow each to yes or no as the queue completes",
        arguments: StorageBackend.allCases)
    func queuedThenDelivered(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let responses = try await harness.api(
            "ada", "[\(Self.draft(to: ["bob@mail.test", "carol@far.example", "gone@far.example"])),\(Self.submit)]")
        let created = try #require(responses[1].arrayValue?[1]["created"]?["s1"])
        let id = try #require(created["id"]?.stringValue)
        let status = try #require(created["deliveryStatus"])
        #expect(status["bob@mail.test"]?["delivered"]?.stringValue == "yes")
        #expect(status["carol@far.example"]?["delivered"]?.stringValue == "queued")
        #expect(status["gone@far.example"]?["delivered"]?.stringValue == "queued")
        #expect(harness.submissions.all.map { [$0.delivered, $0.keptInOutbox, $0.queued] } == [[1, 0, 2]])
        #expect(try await harness.store.outbox().isEmpty)

        let before = try await harness.api(
            "ada", ##"[["EmailSubmission/get",{"accountId":"acct-ada","ids":["\##(id)","nope"]},"g"]]"##)
        let got = try #require(before.first?.arrayValue?[1])
        #expect(got["state"]?.stringValue == "1")
        #expect(got["notFound"] == .array(["nope"]))
        #expect(got["list"]?.arrayValue?.first?["deliveryStatus"] == status)
        #expect(got["list"]?.arrayValue?.first?["emailId"] == created["emailId"])

        // The queue's attempt: carol accepted, gone refused.
        let queue = OutboundQueue(database: harness.test.database)
        let claim = try #require(try await queue.claim(now: 1_700_000_000, limit: 10).first)
        #expect(claim.batch.recipients == ["carol@far.example", "gone@far.example"])
        #expect(claim.batch.sender == "ada@agents.test")
        _ = try await queue.complete(
            claim,
            [
                OutboundOutcome(recipient: "carol@far.example", status: .accepted("250 2.0.0 Ok: queued as X")),
                OutboundOutcome(recipient: "gone@far.example", status: .permanent("550 5.1.1 <gone@far.example>: no")),
            ], now: 1_700_000_010)

        let emailID = try #require(created["emailId"]?.stringValue)
        let after = try await harness.api(
            "ada",
            ##"[["EmailSubmission/changes",{"accountId":"acct-ada","sinceState":"1"},"ch"],["EmailSubmission/get",{"accountId":"acct-ada","ids":["\##(id)"],"properties":["deliveryStatus"]},"g"],["EmailSubmission/query",{"accountId":"acct-ada","filter":{"emailIds":["\##(emailID)"]},"calculateTotal":true},"q"]]"##
        )
        let changes = try #require(after.first?.arrayValue?[1])
        #expect(changes["updated"] == .array([.string(id)]))
        #expect(changes["created"] == .array([]))
        #expect(changes["newState"]?.stringValue == "2")
        let moved = try #require(after[1].arrayValue?[1]["list"]?.arrayValue?.first?["deliveryStatus"])
        #expect(moved["carol@far.example"]?["delivered"]?.stringValue == "yes")
        #expect(moved["carol@far.example"]?["smtpReply"]?.stringValue == "250 2.0.0 Ok: queued as X")
        #expect(moved["gone@far.example"]?["delivered"]?.stringValue == "no")
        #expect(moved["gone@far.example"]?["smtpReply"]?.stringValue == "550 5.1.1 <gone@far.example>: no")
        let query = try #require(after[2].arrayValue?[1])
        #expect(query["ids"] == .array([.string(id)]))
        #expect(query["total"] == 1)
    }

    /// An RFC 8621 `Envelope` with `parameters` null on every address.
    static func envelope(_ mailFrom: String, _ rcptTo: [String]) -> JSONValue {
        let address = { (email: String) -> JSONValue in .object([("email", .string(email)), ("parameters", .null)]) }
        return .object([("mailFrom", address(mailFrom)), ("rcptTo", .array(rcptTo.map(address)))])
    }

    @Test(
        "the envelope used is kept and given back: without one, the sender and the To, Cc and Bcc; else the client's",
        arguments: StorageBackend.allCases)
    func envelopeKept(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let draft = ##"["Email/set",{"accountId":"acct-ada","create":{"d1":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"to":[{"email":"carol@far.example"},{"email":"bob@mail.test"}],"cc":[{"email":"Carol@far.example"}],"bcc":[{"email":"dan@far.example"}],"subject":"Hi","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"Hello"}}}}},"c0"]"##
        let derived = try #require(
            try await harness.api("ada", "[\(draft),\(Self.submit)]")[1].arrayValue?[1]["created"]?["s1"])
        let taken = Self.envelope("ada@agents.test", ["carol@far.example", "bob@mail.test", "dan@far.example"])
        #expect(derived["envelope"] == taken, "the sender, then To, Cc and Bcc without the repeated Carol")

        let given = ##"["EmailSubmission/set",{"accountId":"acct-ada","create":{"s2":{"emailId":"#d1","envelope":{"mailFrom":{"email":"Ada@Agents.test"},"rcptTo":[{"email":"dan@far.example"},{"email":"erin@far.example","parameters":{"NOTIFY":"NEVER"}},{"email":"DAN@far.example"}]}}}},"c1"]"##
        let explicit = try #require(
            try await harness.api("ada", "[\(draft),\(given)]")[1].arrayValue?[1]["created"]?["s2"])
        let asGiven = Self.envelope("Ada@Agents.test", ["dan@far.example", "erin@far.example"])
        #expect(explicit["envelope"] == asGiven, "the client's addresses, without the repeated Dan, with no parameters")
        #expect(explicit["deliveryStatus"]?.objectValue?.map(\.0) == ["dan@far.example", "erin@far.example"])

        let ids = try [derived, explicit].map { try #require($0["id"]?.stringValue) }
        let got = try await harness.api(
            "ada",
            ##"[["EmailSubmission/get",{"accountId":"acct-ada","ids":["\##(ids[0])","\##(ids[1])"],"properties":["envelope"]},"g"]]"##
        )
        let list = try #require(got.first?.arrayValue?[1]["list"]?.arrayValue)
        #expect(list.map { $0["envelope"] } == [taken, asGiven])
        #expect(list.first?.objectValue?.map(\.0) == ["id", "envelope"])
        // A submission recorded without an envelope (before migration 0044 kept them) says null.
        let queue = OutboundQueue(database: harness.test.database)
        _ = try await queue.record(
            NewSubmission(
                id: "Sold", accountID: "acct-ada", sender: "ada@agents.test", emailID: "M1", threadID: "T1",
                sendAt: 1_700_000_000, recipients: [], content: []),
            limits: [], now: 1_700_000_000)
        let old = try await harness.api(
            "ada", ##"[["EmailSubmission/get",{"accountId":"acct-ada","ids":["Sold"],"properties":["envelope"]},"g"]]"##)
        #expect(old.first?.arrayValue?[1]["list"]?.arrayValue?.first?["envelope"] == .null)
    }

    @Test(
        "a sender that may not send outside keeps its outside recipients in the outbox, and deliveryStatus says why",
        arguments: StorageBackend.allCases)
    func notAllowedOutside(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend, sender: .notAccountable)
        let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let status = try #require(responses[1].arrayValue?[1]["created"]?["s1"]?["deliveryStatus"])
        #expect(status["carol@far.example"]?["delivered"]?.stringValue == "no")
        #expect(
            status["carol@far.example"]?["smtpReply"]?.stringValue
                == "550 5.7.1 held in this server's outbox, not sent: this inbox needs an owner before it can write "
                + "outside")
        #expect(status["carol@far.example"]?["heldReason"]?.stringValue == "needs_owner")
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@far.example"]])
        #expect(try await OutboundQueue(database: harness.test.database).list().isEmpty)
    }

    @Test(
        "past a per-sender limit the submission is forbiddenToSend, naming the limit and when it frees; nothing sent",
        arguments: StorageBackend.allCases)
    func limitRefusal(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend, limits: [SendLimit(name: "hourly", count: 1, windowSeconds: 3600)])
        let responses = try await harness.api(
            "ada", "[\(Self.draft(to: ["bob@mail.test", "carol@far.example", "dan@far.example"])),\(Self.submit)]")
        let error = try #require(responses[1].arrayValue?[1]["notCreated"]?["s1"])
        #expect(error["type"]?.stringValue == "forbiddenToSend")
        let description = try #require(error["description"]?.stringValue)
        #expect(description.contains("hourly limit of 1"))
        #expect(description.contains("2023-11-14T23:13:20Z"))  // now (1_700_000_000) + the hour: nothing sent before
        #expect(try await harness.store.page(address: "bob@mail.test", page: 1).isEmpty)
        #expect(try await OutboundQueue(database: harness.test.database).list().isEmpty)
    }

    @Test(
        "an owner who waits for approval keeps the outside recipients in the outbox, and deliveryStatus says so",
        arguments: StorageBackend.allCases)
    func awaitingApproval(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend, sender: .awaitingApproval)
        let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let status = try #require(responses[1].arrayValue?[1]["created"]?["s1"]?["deliveryStatus"])
        #expect(status["carol@far.example"]?["delivered"]?.stringValue == "no")
        let reply = try #require(status["carol@far.example"]?["smtpReply"]?.stringValue)
        #expect(reply.hasPrefix("550 5.7.1") && reply.contains("waits for the operator's approval"))
        #expect(status["carol@far.example"]?["heldReason"]?.stringValue == "awaiting_approval")
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@far.example"]])
        #expect(try await OutboundQueue(database: harness.test.database).list().isEmpty)
    }

    @Test(
        "past the owner's limit the submission is forbiddenToSend for all the owner's inboxes together",
        arguments: StorageBackend.allCases)
    func ownerLimitRefusal(_ backend: StorageBackend) async throws {
        let perOwner = SendLimit(name: "hourly", count: 1, windowSeconds: 3600, scope: .holder)
        let harness = try Self.harness(backend, limits: [perOwner], sender: .allowed(holder: .owner("o1")))
        let first = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let queued = first[1].arrayValue?[1]["created"]?["s1"]?["deliveryStatus"]?["carol@far.example"]
        #expect(queued?["delivered"] == "queued")
        let second = try await harness.api("ada", "[\(Self.draft(to: ["dan@far.example"])),\(Self.submit)]")
        let error = try #require(second[1].arrayValue?[1]["notCreated"]?["s1"])
        #expect(error["type"]?.stringValue == "forbiddenToSend")
        let description = try #require(error["description"]?.stringValue)
        #expect(description.contains("for all the inboxes of this inbox's owner together"))
        // Nobody answers for the sender: the owner's limit is not counted.
        let alone = try Self.harness(backend, limits: [perOwner], sender: .allowed(holder: nil))
        for address in ["carol@far.example", "dan@far.example"] {
            let answer = try await alone.api("ada", "[\(Self.draft(to: [address])),\(Self.submit)]")
            #expect(answer[1].arrayValue?[1]["created"]?["s1"] != nil)
        }
    }

    @Test(
        "queued mail counts against the sender's quota until it leaves the queue: past it, overQuota, nothing sent",
        arguments: StorageBackend.allCases)
    func queuedBytesCountAgainstQuota(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let submitAndDestroy =
            ##"["EmailSubmission/set",{"accountId":"acct-ada","create":{"s1":{"emailId":"#d1"}},"onSuccessDestroyEmail":["#s1"]},"c1"]"##
        // Ada's quota is 1,000,000 bytes; each message is about 300 KB and its Sent copy is destroyed at once, so
        // only the queue holds it while the receiver defers.
        let body = String(repeating: "abcdefghij", count: 30_000)
        func submit() async throws -> JSONValue {
            let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"], body: body)),\(submitAndDestroy)]")
            return try #require(responses[1].arrayValue?[1])
        }
        var accepted = 0
        var refusal: JSONValue?
        for _ in 0..<6 {
            let result = try await submit()
            if let error = result["notCreated"]?["s1"] {
                refusal = error
                break
            }
            #expect(result["created"]?["s1"] != nil)
            accepted += 1
        }
        let error = try #require(refusal)
        #expect(error["type"]?.stringValue == "overQuota")
        #expect(accepted >= 2)
        let queuedBytes = try await harness.test.database.read {
            try $0.query("SELECT SUM(LENGTH(content)) AS n FROM outbound_contents").first?.int("n")
        }
        #expect((queuedBytes ?? 0) <= 1_000_000)
        #expect(harness.submissions.all.count == accepted)

        // One batch leaves the queue: its bytes free, and the next submission is taken.
        let queue = OutboundQueue(database: harness.test.database)
        let claim = try #require(try await queue.claim(now: 1_700_000_000, limit: 1).first)
        _ = try await queue.complete(
            claim, [OutboundOutcome(recipient: "carol@far.example", status: .accepted("250 2.0.0 Ok"))],
            now: 1_700_000_001)
        #expect(try await submit()["created"]?["s1"] != nil)
    }

    @Test(
        "a message past POSTERN_OUTBOUND_MAX_MESSAGE_BYTES is tooLarge with maxSize; nothing sent, local or outside",
        arguments: StorageBackend.allCases)
    func tooLargeToLeave(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend, maxMessageBytes: 200)
        let responses = try await harness.api(
            "ada", "[\(Self.draft(to: ["bob@mail.test", "carol@far.example"])),\(Self.submit)]")
        let error = try #require(responses[1].arrayValue?[1]["notCreated"]?["s1"])
        #expect(error["type"]?.stringValue == "tooLarge" && error["maxSize"] == 200)
        #expect(harness.submissions.all.isEmpty)
        #expect(try await harness.store.used(address: "bob@mail.test") == 0)
        // Only what leaves is held to it: the same message to a local mailbox goes.
        let local = try await harness.api("ada", "[\(Self.draft(to: ["bob@mail.test"])),\(Self.submit)]")
        #expect(local[1].arrayValue?[1]["created"]?["s1"] != nil)
    }

    @Test(
        "with delivery off the outside recipients stay in the outbox as before, and the submission is recorded",
        arguments: StorageBackend.allCases)
    func offMode(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend, sendsOutside: false)
        let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let created = try #require(responses[1].arrayValue?[1]["created"]?["s1"])
        let expected: JSONValue = .object([
            ("smtpReply", "250 2.0.0 held in this server's outbox, not sent: outbound delivery is off on this server"),
            ("delivered", "no"), ("displayed", "unknown"), ("heldReason", "outbound_off"),
        ])
        #expect(created["deliveryStatus"]?["carol@far.example"] == expected)
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@far.example"]])
        let id = try #require(created["id"]?.stringValue)
        let got = try await harness.api(
            "ada", ##"[["EmailSubmission/get",{"accountId":"acct-ada","ids":["\##(id)"]},"g"]]"##)
        #expect(
            got.first?.arrayValue?[1]["list"]?.arrayValue?.first?["deliveryStatus"]?["carol@far.example"] == expected)
    }

    /// The JMAPOutbound a release on `harness`'s database goes through, as the operator's command builds it.
    static func releasing(_ harness: JMAPServiceHarness, sendsOutside: Bool, limits: [SendLimit] = [],
        sender: OutsideSender = .allowed(holder: nil)) -> JMAPOutbound
    {
        JMAPOutbound(
            ledger: OutboundQueue(database: harness.test.database), sendsOutside: sendsOutside, limits: limits,
            sender: { _ in sender })
    }

    @Test(
        "held mail is released through a new submission's checks: held while the reason holds, refused past a limit, then queued in its own submission",
        arguments: StorageBackend.allCases)
    func release(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend, sendsOutside: false)
        let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let id = try #require(responses[1].arrayValue?[1]["created"]?["s1"]?["id"]?.stringValue)
        let entry = try #require(try await harness.store.outbox().first)
        #expect(entry.submissionID == id)
        let (kept, raw) = try #require(try await harness.store.outboxMessage(id: entry.id))
        #expect(kept == entry)
        let now: Int64 = 1_700_000_100

        // Delivery still off, then a sender that may not write outside: it stays held, and says why, typed.
        #expect(
            try await Self.releasing(harness, sendsOutside: false).release(
                entry, raw: raw, quota: 1_000_000, store: harness.store, now: now) == .stillHeld(.outboundOff))
        #expect(
            try await Self.releasing(harness, sendsOutside: true, sender: .notAccountable).release(
                entry, raw: raw, quota: 1_000_000, store: harness.store, now: now) == .stillHeld(.needsOwner))
        // A limit a new submission would pass refuses it too.
        let full = try await Self.releasing(
            harness, sendsOutside: true, limits: [SendLimit(name: "hourly", count: 0, windowSeconds: 3600)]
        ).release(entry, raw: raw, quota: 1_000_000, store: harness.store, now: now)
        guard case .refused(let why) = full else {
            Issue.record("a release past the limit was \(full)")
            return
        }
        #expect(why.contains("hourly limit of 0"))
        #expect(try await harness.store.outbox().count == 1)

        // Delivery on: the submission's held recipient is queued, the message with it; the outbox lets it go.
        let released = try await Self.releasing(harness, sendsOutside: true).release(
            entry, raw: raw, quota: 1_000_000, store: harness.store, now: now)
        #expect(released == .released(1))
        #expect(try await harness.store.outbox().isEmpty)
        let got = try await harness.api(
            "ada", ##"[["EmailSubmission/get",{"accountId":"acct-ada","ids":["\##(id)"]},"g"]]"##)
        let listed = try #require(got.first?.arrayValue?[1]["list"]?.arrayValue?.first)
        #expect(listed["deliveryStatus"]?["carol@far.example"]?["delivered"]?.stringValue == "queued")
        #expect(listed["deliveryStatus"]?["carol@far.example"]?["heldReason"] == nil)
        #expect(got.first?.arrayValue?[1]["state"]?.stringValue == "2", "the release moved the EmailSubmission state")
        let queue = OutboundQueue(database: harness.test.database)
        let claim = try #require(try await queue.claim(now: now, limit: 10).first)
        #expect(claim.batch.recipients == ["carol@far.example"])
        #expect(claim.batch.content == raw)
        // Released once: the same entry again finds nothing to release.
        #expect(try await harness.store.outboxMessage(id: entry.id) == nil)
    }
}
