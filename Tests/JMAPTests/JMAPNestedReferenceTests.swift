import Foundation
import PosternTestSupport
import Testing

/// Beyond the hosted service: result references inside a create object, so that a reply can copy the original's
/// fields in one request (RFC 8620 resolves them only at the top level of the arguments).
@Suite("JMAP result references inside create objects")
struct JMAPNestedReferenceTests {
    @Test(
        "a reply built in one request: to, subject and inReplyTo come from an Email/get of the original",
        arguments: StorageBackend.allCases)
    func replyInOneRequest(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        _ = try await harness.send(from: a, to: [b.address], subject: "Question", text: "How are you?")
        let original = try #require(try await harness.ids(b, in: "inbox").first)

        func reference(_ path: String) -> [String: Any] { ["resultOf": "g", "name": "Email/get", "path": path] }
        let responses = try await harness.call(b, [
            ["Email/get", ["accountId": b.accountID, "ids": [original], "properties": ["from", "subject", "messageId"]], "g"],
            ["Email/set", ["accountId": b.accountID, "create": ["r1": [
                "mailboxIds": ["sent": true], "from": [["email": b.address]],
                "#to": reference("/list/0/from"), "#subject": reference("/list/0/subject"),
                "#inReplyTo": reference("/list/0/messageId"),
                "textBody": [["partId": "t", "type": "text/plain"]], "bodyValues": ["t": ["value": "Fine."]],
            ]]], "c"],
            ["EmailSubmission/set", ["accountId": b.accountID, "create": ["s": ["emailId": "#r1"]]], "s"],
        ])
        #expect(responses.map(\.name) == ["Email/get", "Email/set", "EmailSubmission/set"], "\(responses.map(\.arguments))")
        let status = (responses[2].object("created")?["s"] as? [String: Any])?["deliveryStatus"] as? [String: Any]
        #expect(status?[a.address] != nil, "the reply goes to the original's sender")

        let replies = try await harness.ids(a, in: "inbox")
        let reply = try #require(try await harness.emails(a, replies, properties: ["subject", "inReplyTo", "threadId"]).first)
        #expect(reply["subject"] as? String == "Question")
        #expect((reply["inReplyTo"] as? [String])?.count == 1)

        let wrong = try await harness.call(b, [
            ["Email/get", ["accountId": b.accountID, "ids": [original], "properties": ["subject"]], "g"],
            ["Email/set", ["accountId": b.accountID, "create": ["r2": [
                "mailboxIds": ["drafts": true], "#subject": ["resultOf": "nope", "name": "Email/get", "path": "/x"],
            ]]], "c"],
        ])
        #expect(JMAPHarness.errorType(wrong[1]) == "invalidResultReference")
    }
}
