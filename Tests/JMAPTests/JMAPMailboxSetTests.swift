import Foundation
import PosternTestSupport
import Testing

/// `Mailbox/set` over the store's folders (decision 35): make, rename and move, subscribe, destroy with and without
/// `onDestroyRemoveEmails`; each refusal the SetError RFC 8621 §2.5 names; `Email/set` moving between mailboxes.
@Suite("JMAP Mailbox/set and moving between mailboxes")
struct JMAPMailboxSetTests {
    /// Every mailbox of `agent` by id.
    private func mailboxes(_ harness: JMAPHarness, _ agent: JMAPAgent) async throws -> [String: [String: Any]] {
        let get = try await harness.single(agent, "Mailbox/get", ["accountId": agent.accountID])
        let list = try #require(get.arguments["list"] as? [[String: Any]], "\(get.arguments)")
        return Dictionary(uniqueKeysWithValues: list.compactMap { m in (m["id"] as? String).map { ($0, m) } })
    }

    private func setError(_ response: JMAPInvocation, _ list: String, _ key: String) -> String? {
        (response.object(list)?[key] as? [String: Any])?["type"] as? String
    }

    @Test("create, rename, move an email in, destroy refused then with its emails; fixed ones refused", arguments: StorageBackend.allCases)
    func lifecycle(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        _ = try await harness.send(from: a, to: [b.address], subject: "File me", text: "Into a folder.")
        let id = try #require(try await harness.ids(b, in: "inbox").first)

        var all = try await mailboxes(harness, b)
        #expect(Set(all.values.compactMap { $0["role"] as? String }) == ["inbox", "drafts", "sent", "trash", "junk", "archive"])

        let made = try await harness.single(
            b, "Mailbox/set",
            [
                "accountId": b.accountID,
                "create": [
                    "p": ["name": "Projects", "isSubscribed": true], "c": ["name": "2026", "parentId": "#p"],
                    "bad": ["name": "a/b"], "role": ["name": "Bin", "role": "trash"],
                ],
            ])
        let created = try #require(made.object("created"), "\(made.arguments)")
        let projects = try #require((created["p"] as? [String: Any])?["id"] as? String)
        let year = try #require((created["c"] as? [String: Any])?["id"] as? String)
        #expect(setError(made, "notCreated", "bad") == "invalidProperties")
        #expect(setError(made, "notCreated", "role") == "invalidProperties")
        all = try await mailboxes(harness, b)
        #expect(all[year]?["parentId"] as? String == projects)
        #expect(all[projects]?["isSubscribed"] as? Bool == true && all[year]?["isSubscribed"] as? Bool == false)

        let moved = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["mailboxIds": [year: true]]]])
        #expect(moved.object("updated")?.keys.contains(id) == true, "\(moved.arguments)")
        #expect(try await harness.ids(b, in: "inbox").isEmpty)
        #expect((try await mailboxes(harness, b))[year]?["totalEmails"] as? Int == 1)
        let nowhere = try await harness.single(
            b, "Email/set", ["accountId": b.accountID, "update": [id: ["mailboxIds": ["no-such-mailbox": true]]]])
        #expect(setError(nowhere, "notUpdated", id) == "invalidProperties")

        let before = try await harness.single(b, "Mailbox/get", ["accountId": b.accountID, "ids": [String]()])
        let renamed = try await harness.single(
            b, "Mailbox/set",
            [
                "accountId": b.accountID,
                "update": [
                    projects: ["name": "Work", "parentId": "archive"], "inbox": ["name": "Post"],
                    year: ["parentId": year],
                ],
            ])
        #expect(renamed.object("updated")?.keys.contains(projects) == true, "\(renamed.arguments)")
        #expect(setError(renamed, "notUpdated", "inbox") == "forbidden")
        #expect(setError(renamed, "notUpdated", year) == "invalidProperties")
        all = try await mailboxes(harness, b)
        #expect(all[projects]?["name"] as? String == "Work" && all[projects]?["parentId"] as? String == "archive")
        let changes = try await harness.single(
            b, "Mailbox/changes", ["accountId": b.accountID, "sinceState": before.arguments["state"] as? String ?? ""])
        #expect((changes.arguments["updated"] as? [String])?.contains(projects) == true, "\(changes.arguments)")
        #expect(changes.arguments["updatedProperties"] is NSNull, "a rename is not a change of counts only")

        let refused = try await harness.single(
            b, "Mailbox/set", ["accountId": b.accountID, "destroy": [projects, year, "trash"]])
        #expect(setError(refused, "notDestroyed", projects) == "mailboxHasChild")
        #expect(setError(refused, "notDestroyed", year) == "mailboxHasEmail")
        #expect(setError(refused, "notDestroyed", "trash") == "forbidden")
        let gone = try await harness.single(
            b, "Mailbox/set", ["accountId": b.accountID, "destroy": [year], "onDestroyRemoveEmails": true])
        #expect(gone.arguments["destroyed"] as? [String] == [year], "\(gone.arguments)")
        let get = try await harness.single(b, "Email/get", ["accountId": b.accountID, "ids": [id]])
        #expect(get.arguments["notFound"] as? [String] == [id], "its email went with it")
        #expect((try await mailboxes(harness, b))[year] == nil)
    }
}
