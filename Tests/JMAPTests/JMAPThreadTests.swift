import Foundation
import PosternTestSupport
import Testing

/// Threads: a reply joins the thread of the message it answers, at both ends.
@Suite("JMAP threads")
struct JMAPThreadTests {
    @Test(
        "a reply with inReplyTo = the first message's messageId shares its threadId; Thread/get lists both",
        arguments: StorageBackend.allCases)
    func replyJoinsThread(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")

        let first = try await harness.send(from: a, to: [b.address], subject: "Question", text: "How are you?")
        let originalSent = try #require(first[0].object("created")?["d1"] as? [String: Any])
        let originalAtA = try #require(originalSent["id"] as? String)
        let threadAtA = try #require(originalSent["threadId"] as? String)

        let inbox = try await harness.ids(b, in: "inbox")
        try #require(inbox.count == 1)
        let original = try #require(
            try await harness.emails(b, inbox, properties: ["messageId", "threadId", "subject"]).first)
        let messageID = try #require((original["messageId"] as? [String])?.first, "\(original)")
        #expect(!messageID.contains("<") && !messageID.contains(">"))
        let threadAtB = try #require(original["threadId"] as? String)

        let reply = try await harness.send(
            from: b, to: [a.address], subject: "Re: Question", text: "Fine, thanks.",
            extraEmail: ["inReplyTo": [messageID], "references": [messageID]])
        try #require(reply.count == 2)
        let replySent = try #require(reply[0].object("created")?["d1"] as? [String: Any], "\(reply[0].arguments)")
        let replyAtB = try #require(replySent["id"] as? String)
        #expect(replySent["threadId"] as? String == threadAtB, "B's reply joins B's thread")
        #expect(((reply[1].object("created")?["s1"] as? [String: Any])?["deliveryStatus"] as? [String: Any])?[a.address]
            != nil)

        let threadB = try await harness.single(b, "Thread/get", ["accountId": b.accountID, "ids": [threadAtB]])
        let listB = try #require(threadB.arguments["list"] as? [[String: Any]], "\(threadB.arguments)")
        #expect(listB.first?["id"] as? String == threadAtB)
        #expect(Set(listB.first?["emailIds"] as? [String] ?? []) == [inbox[0], replyAtB])

        // At A: the reply arrives in A's inbox in the thread of A's sent original.
        let aInbox = try await harness.ids(a, in: "inbox")
        try #require(aInbox.count == 1)
        let received = try #require(
            try await harness.emails(a, aInbox, properties: ["threadId", "inReplyTo", "subject"]).first)
        #expect(received["inReplyTo"] as? [String] == [messageID])
        #expect(received["threadId"] as? String == threadAtA)
        let threadA = try await harness.single(a, "Thread/get", ["accountId": a.accountID, "ids": [threadAtA, "nothread"]])
        let listA = try #require(threadA.arguments["list"] as? [[String: Any]], "\(threadA.arguments)")
        // Oldest first by receivedAt, which has whole seconds: the order within one second is the server's.
        #expect(Set(listA.first?["emailIds"] as? [String] ?? []) == [originalAtA, aInbox[0]])
        #expect(threadA.arguments["notFound"] as? [String] == ["nothread"])

        // A message that answers nothing starts its own thread.
        _ = try await harness.send(from: a, to: [b.address], subject: "Unrelated", text: "New topic.")
        let unrelated = try await harness.emails(b, try await harness.ids(b, in: "inbox"), properties: ["threadId", "subject"])
        let other = try #require(unrelated.first { $0["subject"] as? String == "Unrelated" })
        #expect(other["threadId"] as? String != threadAtB)
    }
}
