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
        sendsOutside: Bool = true, limits: [SendLimit] = [], mayReachOutside: Bool = true,
        maxMessageBytes: Int = 25 * 1024 * 1024
    ) throws -> JMAPServiceHarness {
        try JMAPServiceHarness(outbound: { test in
            JMAPOutbound(
                ledger: OutboundQueue(database: test.database), sendsOutside: sendsOutside, limits: limits,
                maxMessageBytes: maxMessageBytes, mayReachOutside: { _ in mayReachOutside })
        })
    }

    static func draft(to recipients: [String], body: String = "Hello") -> String {
        let to = recipients.map { ##"{"email":"\##($0)"}"## }.joined(separator: ",")
        return
            ##"["Email/set",{"accountId":"acct-ada","create":{"d1":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"to":[\##(to)],"subject":"Hi","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"\##(body)"}}}}},"c0"]"##
    }

    static let submit = ##"["EmailSubmission/set",{"accountId":"acct-ada","create":{"s1":{"emailId":"#d1"}}},"c1"]"##

    @Test("outside recipients are queued; get and changes follow each to yes or no as the queue completes")
    func queuedThenDelivered() async throws {
        let harness = try Self.harness()
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
                OutboundOutcome(recipient: "carol@far.example", kind: .delivered, reply: "250 2.0.0 Ok: queued as X"),
                OutboundOutcome(
                    recipient: "gone@far.example", kind: .failed, reply: "550 5.1.1 <gone@far.example>: no"),
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

    @Test("a sender that may not send outside keeps its outside recipients in the outbox, and deliveryStatus says why")
    func notAllowedOutside() async throws {
        let harness = try Self.harness(mayReachOutside: false)
        let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let status = try #require(responses[1].arrayValue?[1]["created"]?["s1"]?["deliveryStatus"])
        #expect(status["carol@far.example"]?["delivered"]?.stringValue == "no")
        #expect(
            status["carol@far.example"]?["smtpReply"]?.stringValue?.contains("ada@agents.test may not send") == true)
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@far.example"]])
        #expect(try await OutboundQueue(database: harness.test.database).list().isEmpty)
    }

    @Test("past a per-sender limit the submission is forbiddenToSend, naming the limit and when it frees; nothing sent")
    func limitRefusal() async throws {
        let harness = try Self.harness(limits: [SendLimit(name: "hourly", count: 1, windowSeconds: 3600)])
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

    @Test("queued mail counts against the sender's quota until it leaves the queue: past it, overQuota, nothing sent")
    func queuedBytesCountAgainstQuota() async throws {
        let harness = try Self.harness()
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
            claim, [OutboundOutcome(recipient: "carol@far.example", kind: .delivered, reply: "250 2.0.0 Ok")],
            now: 1_700_000_001)
        #expect(try await submit()["created"]?["s1"] != nil)
    }

    @Test("a message past POSTERN_OUTBOUND_MAX_MESSAGE_BYTES is tooLarge with maxSize; nothing sent, local or outside")
    func tooLargeToLeave() async throws {
        let harness = try Self.harness(maxMessageBytes: 200)
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

    @Test("with delivery off the outside recipients stay in the outbox as before, and the submission is recorded")
    func offMode() async throws {
        let harness = try Self.harness(sendsOutside: false)
        let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let created = try #require(responses[1].arrayValue?[1]["created"]?["s1"])
        let expected: JSONValue = .object([
            ("smtpReply", "250 2.0.0 kept in this server's outbox: Postern does not send mail to other domains"),
            ("delivered", "no"), ("displayed", "unknown"),
        ])
        #expect(created["deliveryStatus"]?["carol@far.example"] == expected)
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@far.example"]])
        let id = try #require(created["id"]?.stringValue)
        let got = try await harness.api(
            "ada", ##"[["EmailSubmission/get",{"accountId":"acct-ada","ids":["\##(id)"]},"g"]]"##)
        #expect(
            got.first?.arrayValue?[1]["list"]?.arrayValue?.first?["deliveryStatus"]?["carol@far.example"] == expected)
    }
}
