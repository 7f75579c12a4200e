import Foundation
import PosternTestSupport
import Testing

/// `Email/set` update and destroy, seen through `Mailbox/get` counts and `Email/get`.
@Suite("JMAP Email/set update and destroy")
struct JMAPEmailSetTests {
    /// `unreadEmails` and `totalEmails` of `agent`'s inbox.
    private func inboxCounts(_ harness: JMAPHarness, _ agent: JMAPAgent) async throws -> (unread: Int, total: Int) {
        let get = try await harness.single(agent, "Mailbox/get", ["accountId": agent.accountID, "ids": ["inbox"]])
        let inbox = try #require((get.arguments["list"] as? [[String: Any]])?.first, "\(get.arguments)")
        #expect(inbox["role"] as? String == "inbox")
        return (try #require(inbox["unreadEmails"] as? Int), try #require(inbox["totalEmails"] as? Int))
    }

    @Test(
        "keywords/$seen moves Mailbox/get's unreadEmails; destroy removes the email (Email/get notFound)",
        arguments: StorageBackend.allCases)
    func seenThenDestroy(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        _ = try await harness.send(from: a, to: [b.address], subject: "Read me", text: "Then delete me.")

        let inbox = try await harness.ids(b, in: "inbox")
        try #require(inbox.count == 1)
        let id = inbox[0]
        let before = try await inboxCounts(harness, b)
        #expect(before.unread == 1)
        #expect(before.total == 1)

        let seen = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["keywords/$seen": true]]])
        #expect(seen.name == "Email/set", "\(seen.arguments)")
        #expect(seen.object("updated")?.keys.contains(id) == true, "\(seen.arguments)")
        #expect(seen.arguments["oldState"] as? String != seen.arguments["newState"] as? String)
        let afterSeen = try await inboxCounts(harness, b)
        #expect(afterSeen.unread == 0)
        #expect(afterSeen.total == 1)
        let keywords = try await harness.emails(b, [id], properties: ["keywords"]).first?["keywords"] as? [String: Any]
        #expect(keywords?["$seen"] != nil, "\(String(describing: keywords))")

        let unseen = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["keywords/$seen": NSNull()]]])
        #expect(unseen.object("updated")?.keys.contains(id) == true, "\(unseen.arguments)")
        #expect(try await inboxCounts(harness, b).unread == 1)

        let destroy = try await harness.single(b, "Email/set", ["accountId": b.accountID, "destroy": [id]])
        #expect(destroy.arguments["destroyed"] as? [String] == [id], "\(destroy.arguments)")
        let get = try await harness.single(b, "Email/get", ["accountId": b.accountID, "ids": [id]])
        #expect((get.arguments["list"] as? [Any])?.isEmpty == true)
        #expect(get.arguments["notFound"] as? [String] == [id])
        #expect(try await inboxCounts(harness, b).total == 0)

        // A second destroy finds nothing.
        let again = try await harness.single(b, "Email/set", ["accountId": b.accountID, "destroy": [id]])
        #expect((again.object("notDestroyed")?[id] as? [String: Any])?["type"] as? String == "notFound")
        // The sender's copy is untouched.
        #expect(try await harness.ids(a, in: "sent").count == 1)
    }

    /// Issue 81 item 12: JMAP meets IMAP's keyword caps (``MailKeywordLimits``' defaults: 64 keywords on a message,
    /// each at most 50 bytes), through the store that holds them for both.
    @Test(
        "keywords past the caps: update and create refused (tooManyKeywords, invalidProperties), nothing stored",
        arguments: StorageBackend.allCases)
    func keywordCaps(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        _ = try await harness.send(from: a, to: [b.address], subject: "Tag me", text: "Not too much.")
        let id = try #require(try await harness.ids(b, in: "inbox").first)
        let tooMany = Dictionary(uniqueKeysWithValues: (0...64).map { ("k\($0)", true) })

        let many = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["keywords": tooMany]]])
        let manyError = many.object("notUpdated")?[id] as? [String: Any]
        #expect(manyError?["type"] as? String == "tooManyKeywords", "\(many.arguments)")
        let long = String(repeating: "x", count: 51)
        let tooLong = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["keywords/\(long)": true]]])
        let longError = tooLong.object("notUpdated")?[id] as? [String: Any]
        #expect(longError?["type"] as? String == "invalidProperties", "\(tooLong.arguments)")
        #expect(longError?["properties"] as? [String] == ["keywords"], "\(tooLong.arguments)")
        let kept = try await harness.emails(b, [id], properties: ["keywords"]).first?["keywords"] as? [String: Any]
        #expect(kept?.isEmpty == true, "\(String(describing: kept))")

        let created = try await harness.single(
            b, "Email/set",
            ["accountId": b.accountID, "create": ["c": ["mailboxIds": ["drafts": true], "keywords": tooMany]]])
        let createError = created.object("notCreated")?["c"] as? [String: Any]
        #expect(createError?["type"] as? String == "tooManyKeywords", "\(created.arguments)")
        #expect(try await harness.ids(b, in: "drafts").isEmpty)

        let atCap = Dictionary(uniqueKeysWithValues: (0..<64).map { ("k\($0)", true) })
        let fits = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["keywords": atCap]]])
        #expect(fits.object("updated")?.keys.contains(id) == true, "\(fits.arguments)")
    }

    /// RFC 8621 section 4.6: a blobNotFound SetError has `notFound`, the blob ids it could not find, for a body part's
    /// blob as for an attachment's.
    @Test("a textBody blob that is not there: blobNotFound with notFound naming it, nothing stored",
          arguments: StorageBackend.allCases)
    func missingBodyBlob(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let b = try await harness.signUp("bobby")
        let created = try await harness.single(
            b, "Email/set",
            ["accountId": b.accountID, "create": ["c": ["mailboxIds": ["drafts": true], "textBody": [["blobId": "cat"]]]]])
        let error = created.object("notCreated")?["c"] as? [String: Any]
        #expect(error?["type"] as? String == "blobNotFound", "\(created.arguments)")
        #expect(error?["notFound"] as? [String] == ["cat"], "\(created.arguments)")
        #expect(try await harness.ids(b, in: "drafts").isEmpty)
    }
}
