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
        sendsOutside: Bool = true, limits: [SendLimit] = [], sender: OutsideSender = .allowed(holder: nil)
    ) throws -> JMAPServiceHarness {
        try JMAPServiceHarness(outbound: { test in
            JMAPOutbound(
                ledger: OutboundQueue(database: test.database), sendsOutside: sendsOutside, limits: limits,
                sender: { _ in sender })
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
        let harness = try Self.harness(sender: .notAccountable)
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

    @Test("an owner who waits for approval keeps the outside recipients in the outbox, and deliveryStatus says so")
    func awaitingApproval() async throws {
        let harness = try Self.harness(sender: .awaitingApproval)
        let responses = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let status = try #require(responses[1].arrayValue?[1]["created"]?["s1"]?["deliveryStatus"])
        #expect(status["carol@far.example"]?["delivered"]?.stringValue == "no")
        let reply = try #require(status["carol@far.example"]?["smtpReply"]?.stringValue)
        #expect(reply.hasPrefix("550 5.7.1") && reply.contains("until the operator approves its owner"))
        #expect(JMAPOutbound.keptInOutbox(reply))
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@far.example"]])
        #expect(try await OutboundQueue(database: harness.test.database).list().isEmpty)
    }

    @Test("past the owner's limit the submission is forbiddenToSend for all the owner's inboxes together")
    func ownerLimitRefusal() async throws {
        let perOwner = SendLimit(name: "hourly", count: 1, windowSeconds: 3600, scope: .holder)
        let harness = try Self.harness(limits: [perOwner], sender: .allowed(holder: "owner:o1"))
        let first = try await harness.api("ada", "[\(Self.draft(to: ["carol@far.example"])),\(Self.submit)]")
        let queued = first[1].arrayValue?[1]["created"]?["s1"]?["deliveryStatus"]?["carol@far.example"]
        #expect(queued?["delivered"] == "queued")
        let second = try await harness.api("ada", "[\(Self.draft(to: ["dan@far.example"])),\(Self.submit)]")
        let error = try #require(second[1].arrayValue?[1]["notCreated"]?["s1"])
        #expect(error["type"]?.stringValue == "forbiddenToSend")
        let description = try #require(error["description"]?.stringValue)
        #expect(description.contains("for all the inboxes of this inbox's owner together"))
        // Nobody answers for the sender: the owner's limit is not counted.
        let alone = try Self.harness(limits: [perOwner], sender: .allowed(holder: nil))
        for address in ["carol@far.example", "dan@far.example"] {
            let answer = try await alone.api("ada", "[\(Self.draft(to: [address])),\(Self.submit)]")
            #expect(answer[1].arrayValue?[1]["created"]?["s1"] != nil)
        }
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
