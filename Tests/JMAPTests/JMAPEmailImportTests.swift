import Foundation
import PosternTestSupport
import Testing

/// `Email/import` (RFC 8621 section 4.8): a message uploaded as a blob becomes an Email in one mailbox, with its
/// keywords and receivedAt; what cannot be imported is a SetError of its own.
@Suite("JMAP Email/import")
struct JMAPEmailImportTests {
    static let message = """
        From: Carol <carol@example.org>\r
        To: alice@agents.test\r
        Subject: Imported as it is\r
        Date: Sat, 28 Nov 2026 09:30:00 +0000\r
        Message-ID: <import-1@example.org>\r
        \r
        Kept byte for byte.\r

        """

    /// Uploads `bytes` through Blob/upload; returns its blob id.
    static func upload(_ harness: JMAPHarness, _ agent: JMAPAgent, _ bytes: String) async throws -> String {
        let upload = try await harness.single(
            agent, "Blob/upload",
            ["accountId": agent.accountID, "create": ["b": ["data": [["data:asText": bytes]], "type": "message/rfc822"]]])
        let created = try #require(upload.object("created")?["b"] as? [String: Any], "\(upload.arguments)")
        return try #require(created["id"] as? String)
    }

    @Test(
        "An uploaded message imported into the inbox: id, blobId, threadId, size; Email/get shows keywords, mailbox, receivedAt",
        arguments: StorageBackend.allCases)
    func importsIntoInbox(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        let blobID = try await Self.upload(harness, alice, Self.message)

        let imported = try await harness.single(
            alice, "Email/import",
            ["accountId": alice.accountID,
             "emails": ["m1": ["blobId": blobID, "mailboxIds": ["inbox": true],
                               "keywords": ["$seen": true, "$flagged": true], "receivedAt": "2026-11-28T10:00:00Z"]]])
        #expect(imported.name == "Email/import", "\(imported.arguments)")
        #expect(imported.arguments["accountId"] as? String == alice.accountID)
        #expect(imported.arguments["newState"] as? String != nil)
        let created = try #require(imported.object("created")?["m1"] as? [String: Any], "\(imported.arguments)")
        let id = try #require(created["id"] as? String)
        #expect(created["size"] as? Int == Self.message.utf8.count)
        #expect(created["threadId"] as? String != nil)
        #expect(created["blobId"] as? String == "M" + id)
        #expect(imported.arguments["notCreated"] is NSNull)

        let email = try #require(
            try await harness.emails(
                alice, [id], properties: ["subject", "keywords", "mailboxIds", "receivedAt", "from", "size"]
            ).first)
        #expect(email["subject"] as? String == "Imported as it is")
        #expect(email["keywords"] as? [String: Bool] == ["$seen": true, "$flagged": true])
        #expect(email["mailboxIds"] as? [String: Bool] == ["inbox": true])
        #expect(email["receivedAt"] as? String == "2026-11-28T10:00:00Z")
        #expect((email["from"] as? [[String: Any]])?.first?["email"] as? String == "carol@example.org")
        #expect(try await harness.ids(alice, in: "inbox") == [id])

        let raw = try await harness.single(
            alice, "Blob/get", ["accountId": alice.accountID, "ids": ["M" + id], "properties": ["data:asText"]])
        #expect((raw.arguments["list"] as? [[String: Any]])?.first?["data:asText"] as? String == Self.message)
    }

    @Test(
        "Each EmailImport fails alone: blobNotFound, invalidEmail, invalidProperties; the good one beside them is created",
        arguments: StorageBackend.allCases)
    func failuresAreEachTheirOwn(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        let good = try await Self.upload(harness, alice, Self.message)
        let text = try await Self.upload(harness, alice, "some data")

        let imported = try await harness.single(
            alice, "Email/import",
            ["accountId": alice.accountID,
             "emails": [
                "good": ["blobId": good, "mailboxIds": ["drafts": true]],
                "missing": ["blobId": "Bnosuchblob", "mailboxIds": ["inbox": true]],
                "text": ["blobId": text, "mailboxIds": ["inbox": true]],
                "two": ["blobId": good, "mailboxIds": ["inbox": true, "drafts": true]],
             ]])
        #expect(imported.name == "Email/import", "\(imported.arguments)")
        #expect((imported.object("created")?["good"] as? [String: Any])?["id"] is String, "\(imported.arguments)")
        let notCreated = try #require(imported.object("notCreated"), "\(imported.arguments)")
        let missing = try #require(notCreated["missing"] as? [String: Any])
        #expect(missing["type"] as? String == "blobNotFound")
        #expect(missing["notFound"] as? [String] == ["Bnosuchblob"])
        #expect((notCreated["text"] as? [String: Any])?["type"] as? String == "invalidEmail")
        let two = try #require(notCreated["two"] as? [String: Any])
        #expect(two["type"] as? String == "invalidProperties")
        #expect(two["properties"] as? [String] == ["mailboxIds"])
        #expect(try await harness.ids(alice, in: "drafts").count == 1)
        #expect(try await harness.ids(alice, in: "inbox").isEmpty)

        let noEmails = try await harness.single(alice, "Email/import", ["accountId": alice.accountID])
        #expect(JMAPHarness.errorType(noEmails) == "invalidArguments", "\(noEmails.arguments)")
    }

    /// RFC 8621 section 4.8 answers each EmailImport in `notCreated`, and RFC 8620 section 5.3 makes a record with a
    /// property of the wrong type or value `invalidProperties` listing every property at fault: only `emails` itself,
    /// absent or not a map, fails the whole call (RFC 8620 section 3.6.2's `invalidArguments`).
    @Test("a malformed EmailImport is invalidProperties naming each property at fault; a bad `emails` fails the call")
    func malformedImports() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        let good = try await Self.upload(harness, alice, Self.message)
        let imported = try await harness.single(
            alice, "Email/import",
            ["accountId": alice.accountID,
             "emails": [
                "empty": [:] as [String: Any],
                "types": ["blobId": ["x"], "mailboxIds": ["inbox"], "keywords": ["a"], "receivedAt": ["x"]],
                "values": ["blobId": good, "mailboxIds": "inbox", "keywords": "a", "receivedAt": "yesterday"],
                "unknown": ["blobId": good, "mailboxIds": ["inbox": true], "size": 1],
                "good": ["blobId": good, "mailboxIds": ["inbox": true]],
             ]])
        #expect((imported.object("created")?["good"] as? [String: Any])?["id"] is String, "\(imported.arguments)")
        let notCreated = try #require(imported.object("notCreated"), "\(imported.arguments)")
        let expected: [String: [String]] = [
            "empty": ["blobId", "mailboxIds"], "types": ["blobId", "mailboxIds", "keywords", "receivedAt"],
            "values": ["mailboxIds", "keywords", "receivedAt"], "unknown": ["size"],
        ]
        for (id, properties) in expected {
            let error = notCreated[id] as? [String: Any]
            #expect(error?["type"] as? String == "invalidProperties", "\(id): \(String(describing: error))")
            #expect(error?["properties"] as? [String] == properties, "\(id): \(String(describing: error))")
        }
        for emails: Any in [NSNull(), "none", ["x"]] {
            let call = try await harness.single(alice, "Email/import", ["accountId": alice.accountID, "emails": emails])
            #expect(JMAPHarness.errorType(call) == "invalidArguments", "\(emails): \(call.arguments)")
        }
    }
}
