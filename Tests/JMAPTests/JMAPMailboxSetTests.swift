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

    /// RFC 8620 §5.5: a filter is a FilterCondition or a FilterOperator (`AND`, `OR`, `NOT` over `conditions`).
    @Test("Mailbox/query with AND, OR and NOT over conditions, nested; an unknown operator is unsupportedFilter",
          arguments: StorageBackend.allCases)
    func queryFilterOperators(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let b = try await harness.signUp("bobby")
        let made = try await harness.single(
            b, "Mailbox/set",
            ["accountId": b.accountID, "create": ["p": ["name": "Projects"], "c": ["name": "2026", "parentId": "#p"]]])
        let created = try #require(made.object("created"), "\(made.arguments)")
        let projects = try #require((created["p"] as? [String: Any])?["id"] as? String)
        let year = try #require((created["c"] as? [String: Any])?["id"] as? String)
        func query(_ filter: Any) async throws -> JMAPInvocation {
            try await harness.single(b, "Mailbox/query", ["accountId": b.accountID, "filter": filter])
        }
        func ids(_ filter: Any) async throws -> Set<String> {
            let answer = try await query(filter)
            return Set(try #require(answer.arguments["ids"] as? [String], "\(answer.arguments)"))
        }
        #expect(try await ids(["operator": "OR", "conditions": [["role": "inbox"], ["name": "proj"]]]) == ["inbox", projects])
        #expect(try await ids(["operator": "NOT", "conditions": [["hasAnyRole": true]]]) == [projects, year])
        #expect(try await ids(["operator": "AND", "conditions": [
            ["hasAnyRole": false], ["operator": "NOT", "conditions": [["parentId": NSNull()]]],
        ]]) == [year])
        #expect(try await ids(["operator": "AND", "conditions": [] as [Any]]).count == 8)
        let unknown = try await query(["operator": "XOR", "conditions": [["role": "inbox"]]])
        #expect(unknown.name == "error" && unknown.arguments["type"] as? String == "unsupportedFilter", "\(unknown.arguments)")
        // RFC 8620 §5.5: a negative position counts from the end (8 mailboxes: -2 is the seventh), past the start is 0.
        let sorted = ["accountId": b.accountID, "sort": [["property": "name"]]] as [String: Any]
        let all = try await harness.single(b, "Mailbox/query", sorted).arguments["ids"] as? [String]
        let lastTwo = try await harness.single(b, "Mailbox/query", sorted.merging(["position": -2]) { $1 })
        #expect(lastTwo.arguments["ids"] as? [String] == all.map { Array($0.suffix(2)) }, "\(lastTwo.arguments)")
        #expect(lastTwo.arguments["position"] as? Int == 6)
        let before = try await harness.single(b, "Mailbox/query", sorted.merging(["position": -20]) { $1 })
        #expect(before.arguments["ids"] as? [String] == all && before.arguments["position"] as? Int == 0)
        let notObject = try await query("inbox")
        #expect(notObject.arguments["type"] as? String == "invalidArguments", "\(notObject.arguments)")
    }

    @Test("isSubscribed set and cleared shows in Mailbox/changes with every property possibly changed; a delivery with counts only", arguments: StorageBackend.allCases)
    func subscriptionIsAChange(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("subsender")
        let b = try await harness.signUp("subreader")
        let made = try await harness.single(
            b, "Mailbox/set", ["accountId": b.accountID, "create": ["n": ["name": "News"]]])
        let news = try #require((made.object("created")?["n"] as? [String: Any])?["id"] as? String)
        let state = { (invocation: JMAPInvocation) in invocation.arguments["newState"] as? String ?? "" }

        let subscribed = try await harness.single(
            b, "Mailbox/set", ["accountId": b.accountID, "update": [news: ["isSubscribed": true]]])
        #expect(subscribed.object("updated")?.keys.contains(news) == true, "\(subscribed.arguments)")
        #expect(try await mailboxes(harness, b)[news]?["isSubscribed"] as? Bool == true)
        let changes = try await harness.single(
            b, "Mailbox/changes", ["accountId": b.accountID, "sinceState": subscribed.arguments["oldState"] as? String ?? ""])
        #expect(changes.arguments["updated"] as? [String] == [news], "\(changes.arguments)")
        #expect(changes.arguments["updatedProperties"] is NSNull, "isSubscribed is not a count")

        let cleared = try await harness.single(
            b, "Mailbox/set", ["accountId": b.accountID, "update": [news: ["isSubscribed": false]]])
        let again = try await harness.single(
            b, "Mailbox/changes", ["accountId": b.accountID, "sinceState": state(subscribed)])
        #expect(again.arguments["updated"] as? [String] == [news], "\(again.arguments)")
        #expect(again.arguments["newState"] as? String == state(cleared))
        let unchanged = try await harness.single(
            b, "Mailbox/set", ["accountId": b.accountID, "update": [news: ["isSubscribed": false]]])
        #expect(state(unchanged) == state(cleared), "unsubscribing what is not subscribed changes nothing")

        _ = try await harness.send(from: a, to: [b.address], subject: "Counts", text: "Only.")
        let counts = try await harness.single(
            b, "Mailbox/changes", ["accountId": b.accountID, "sinceState": state(cleared)])
        #expect(counts.arguments["updated"] as? [String] == ["inbox"], "\(counts.arguments)")
        #expect(
            counts.arguments["updatedProperties"] as? [String]
                == ["totalEmails", "unreadEmails", "totalThreads", "unreadThreads"])
    }

    @Test("sortOrder is the client's on a made mailbox (a change in Mailbox/changes), the server's on the six; a patch may repeat server-set values as they are", arguments: StorageBackend.allCases)
    func sortOrderAndRepeatedValues(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let b = try await harness.signUp("sorter")
        let made = try await harness.single(
            b, "Mailbox/set",
            [
                "accountId": b.accountID,
                "create": ["s": ["name": "Sorted", "sortOrder": 55], "d": ["name": "Default"], "bad": ["name": "Bad", "sortOrder": -1]],
            ])
        let sorted = try #require(made.object("created")?["s"] as? [String: Any], "\(made.arguments)")
        let id = try #require(sorted["id"] as? String)
        #expect(sorted["sortOrder"] as? Int == 55)
        #expect((made.object("created")?["d"] as? [String: Any])?["sortOrder"] as? Int == 100)
        #expect(setError(made, "notCreated", "bad") == "invalidProperties")
        var all = try await mailboxes(harness, b)
        #expect(all[id]?["sortOrder"] as? Int == 55 && all["inbox"]?["sortOrder"] as? Int == 1)

        let moved = try await harness.single(
            b, "Mailbox/set", ["accountId": b.accountID, "update": [id: ["sortOrder": 53], "inbox": ["sortOrder": 9]]])
        #expect(moved.object("updated")?.keys.contains(id) == true, "\(moved.arguments)")
        #expect(setError(moved, "notUpdated", "inbox") == "forbidden")
        #expect(try await mailboxes(harness, b)[id]?["sortOrder"] as? Int == 53)
        let changes = try await harness.single(
            b, "Mailbox/changes", ["accountId": b.accountID, "sinceState": moved.arguments["oldState"] as? String ?? ""])
        #expect(changes.arguments["updated"] as? [String] == [id], "\(changes.arguments)")

        // The whole object Mailbox/get gave, with a new name: server-set values repeated as they are pass (RFC 8620 §5.3).
        var patch = try #require(all[id])
        patch["name"] = "Renamed"
        patch["sortOrder"] = 53
        let repeated = try await harness.single(b, "Mailbox/set", ["accountId": b.accountID, "update": [id: patch]])
        #expect(repeated.object("updated")?.keys.contains(id) == true, "\(repeated.arguments)")
        all = try await mailboxes(harness, b)
        #expect(all[id]?["name"] as? String == "Renamed")
        let inbox = try #require(all["inbox"])
        let sameInbox = try await harness.single(b, "Mailbox/set", ["accountId": b.accountID, "update": ["inbox": inbox]])
        #expect(sameInbox.object("updated")?.keys.contains("inbox") == true, "\(sameInbox.arguments)")
        let wrong = try await harness.single(
            b, "Mailbox/set",
            ["accountId": b.accountID, "update": [id: ["totalEmails": 7], "inbox": ["role": "trash"]]])
        #expect(setError(wrong, "notUpdated", id) == "invalidProperties")
        #expect(setError(wrong, "notUpdated", "inbox") == "invalidProperties")
    }
}
