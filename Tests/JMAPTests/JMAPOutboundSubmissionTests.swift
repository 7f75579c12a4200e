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
        sendsOutside: Bool = true, limits: [SendLimit] = [], mayReachOutside: Bool = true
    ) throws -> JMAPServiceHarness {
        try JMAPServiceHarness(outbound: { test in
            JMAPOutbound(
                ledger: OutboundQueue(database: test.database), sendsOutside: sendsOutside, limits: limits,
                mayReachOutside: { _ in mayReachOutside })
        })
    }

    static func draft(to recipients: [String]) -> String {
        let to = recipients.map { ##"{"email":"\##($0)"}"## }.joined(separator: ",")
        return
            ##"["Email/set",{"accountId":"acct-ada","create":{"d1":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"to":[\##(to)],"subject":"Hi","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"Hello"}}}}},"c0"]"##
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
