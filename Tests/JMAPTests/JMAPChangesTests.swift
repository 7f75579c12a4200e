import ClientAddress
import JSON
import MIME
import MailStore
import PosternTestSupport
import Storage
import Testing

@testable import JMAP

@Suite("JMAP changes: Email, Mailbox, Thread and query changes from the change log")
struct JMAPChangesTests {
    static func message(_ subject: String, inReplyTo: [String] = []) -> NewMailMessage {
        NewMailMessage(
            envelopeFrom: "x@example.com", from: [MailAddress(email: "x@example.com")],
            to: [MailAddress(email: "ada@agents.test")], subject: subject, messageID: "\(subject)@example.com",
            inReplyTo: inReplyTo, references: inReplyTo, sentAt: 1_700_000_000, textBody: "Hi", preview: "Hi",
            attachments: [], raw: Array("Subject: \(subject)\r\n\r\nHi".utf8))
    }

    func deliver(_ harness: JMAPServiceHarness, _ subject: String, inReplyTo: [String] = []) async throws -> String {
        try await harness.store.deliver(
            Self.message(subject, inReplyTo: inReplyTo), to: [.init(address: "ada@agents.test", quota: 1_000_000)],
            folder: .inbox, now: 1_700_000_000)[0]
    }

    func call(_ harness: JMAPServiceHarness, _ name: String, _ arguments: String) async throws -> JSONValue {
        let responses = try await harness.api("ada", ##"[["\##(name)",{"accountId":"acct-ada",\##(arguments)},"c"]]"##)
        return try #require(responses.first?.arrayValue?[1])
    }

    func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    @Test(
        "a client follows Email/changes from the state Email/get gave it: created, updated, destroyed, then nothing",
        arguments: StorageBackend.allCases)
    func emailChanges(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let first = try await deliver(harness, "one")
        let state = try #require(try await call(harness, "Email/get", #""ids":[]"#)["state"]?.stringValue)
        let second = try await deliver(harness, "two")
        let third = try await deliver(harness, "three")
        _ = try await call(harness, "Email/set", ##""update":{"\##(first)":{"keywords/$seen":true}}"##)
        _ = try await call(harness, "Email/set", ##""destroy":["\##(third)"]"##)
        let changes = try await call(harness, "Email/changes", #""sinceState":"\#(state)""#)
        #expect(strings(changes["created"]) == [second])
        #expect(strings(changes["updated"]) == [first])
        #expect(strings(changes["destroyed"]) == [])
        #expect(changes["oldState"]?.stringValue == state && changes["hasMoreChanges"] == false)
        let newState = try #require(changes["newState"]?.stringValue)
        #expect(newState == (try await call(harness, "Email/get", #""ids":[]"#)["state"]?.stringValue))
        let none = try await call(harness, "Email/changes", #""sinceState":"\#(newState)""#)
        #expect(strings(none["created"]) + strings(none["updated"]) + strings(none["destroyed"]) == [])
        #expect(none["newState"]?.stringValue == newState)

        let paged = try await call(harness, "Email/changes", #""sinceState":"\#(state)","maxChanges":1"#)
        #expect(strings(paged["created"]) == [second] && paged["hasMoreChanges"] == true)
        let rest = try await call(
            harness, "Email/changes", #""sinceState":"\#(paged["newState"]?.stringValue ?? "")","maxChanges":1"#)
        // The next page stops at an intermediate state: the third message's creation, before it was destroyed.
        #expect(strings(rest["created"]) == [third] && rest["hasMoreChanges"] == true)
        #expect(try await call(harness, "Email/changes", #""sinceState":"\#(state)","maxChanges":0"#)["type"]
            == "invalidArguments")
    }

    @Test(
        "a /set's oldState is the state before it while every change since is its own, else null; /changes has all",
        arguments: StorageBackend.allCases)
    func setStates(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let first = try await deliver(harness, "one")
        let before = try #require(try await call(harness, "Email/get", #""ids":[]"#)["state"]?.stringValue)
        let own = try await call(harness, "Email/set", ##""update":{"\##(first)":{"keywords/$seen":true}}"##)
        #expect(own["oldState"]?.stringValue == before)
        let after = try #require(own["newState"]?.stringValue)
        #expect(after != before)

        // A change that is not the call's own (a delivery between its first read and its answer) makes oldState
        // null: a client that moved its cache from oldState to newState would never see that message.
        let account = JMAPAccount(id: "acct-ada", address: "ada@agents.test", quota: 1_000_000)
        let call = JMAPCall(
            account: account, client: ClientAddressKey(peer: "192.0.2.1"), using: [], createdIDs: [:],
            limits: JMAPConfiguration(baseURL: "http://jmap.test/"))
        _ = try await harness.store.update(
            address: account.address, id: first, keywords: ["$seen", "$flagged"], folder: .inbox)
        let foreign = try await deliver(harness, "two")
        let mixed = try await harness.service.statesAfterSet(before: .string(after), touched: [first], call)
        #expect(mixed.old == .null)
        let now = try #require(mixed.new.stringValue)
        let whole = try await harness.service.statesAfterSet(before: .string(after), touched: [first, foreign], call)
        #expect(whole.old == .string(after) && whole.new == .string(now))
        let changes = try await self.call(harness, "Email/changes", #""sinceState":"\#(after)""#)
        #expect(strings(changes["created"]) == [foreign] && strings(changes["updated"]) == [first])

        // Sending to oneself delivers a message the submission did not name: oldState null here too.
        let draft = ##"["Email/set",{"accountId":"acct-ada","create":{"d":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"to":[{"email":"ada@agents.test"}],"subject":"Me","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"."}}}}},"c0"]"##
        let responses = try await harness.api(
            "ada", ##"[\##(draft),["EmailSubmission/set",{"accountId":"acct-ada","create":{"s":{"emailId":"#d"}}},"c1"]]"##)
        #expect(responses[0].arrayValue?[1]["oldState"]?.stringValue == now)
        let submission = try #require(responses[1].arrayValue?[1])
        #expect(submission["created"]?["s"] != nil)
        #expect(submission["oldState"] == .null)
    }

    @Test(
        "too old a state (trimmed from the log) and a state never issued are cannotCalculateChanges",
        arguments: StorageBackend.allCases)
    func tooOld(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        for subject in ["a", "b", "c"] { _ = try await deliver(harness, subject) }
        _ = try await harness.test.database.write { try MailStore.trimChanges($0, keep: 1) }
        for since in ["0", "1", "99", "x"] {
            #expect(try await call(harness, "Email/changes", #""sinceState":"\#(since)""#)["type"]
                == "cannotCalculateChanges", "\(since)")
        }
        #expect(try await call(harness, "Email/changes", #""sinceState":"2""#)["created"]?.arrayValue?.count == 1)
    }

    @Test(
        "Mailbox/changes names the folders whose counts moved; Thread/changes the threads",
        arguments: StorageBackend.allCases)
    func mailboxesAndThreads(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let root = try await deliver(harness, "root")
        let state = try #require(try await call(harness, "Mailbox/get", #""ids":[]"#)["state"]?.stringValue)
        _ = try await deliver(harness, "reply", inReplyTo: ["root@example.com"])
        let lonely = try await deliver(harness, "lonely")
        _ = try await call(harness, "Email/set", ##""update":{"\##(lonely)":{"mailboxIds":{"drafts":true}}}"##)
        let mailboxes = try await call(harness, "Mailbox/changes", #""sinceState":"\#(state)""#)
        #expect(Set(strings(mailboxes["updated"])) == ["inbox", "drafts"])
        #expect(strings(mailboxes["updatedProperties"]).contains("totalEmails"))
        // From just before the move, one change names two mailboxes: past maxChanges 1, which the RFC forbids.
        let beforeMove = String((Int64(state) ?? 0) + 2)
        let one = try await call(harness, "Mailbox/changes", #""sinceState":"\#(beforeMove)","maxChanges":1"#)
        #expect(one["type"] == "cannotCalculateChanges", "\(one)")
        let two = try await call(harness, "Mailbox/changes", #""sinceState":"\#(beforeMove)","maxChanges":2"#)
        #expect(Set(strings(two["updated"])) == ["inbox", "drafts"])
        let threads = try await call(harness, "Thread/changes", #""sinceState":"\#(state)""#)
        #expect(strings(threads["created"]) == [lonely] && strings(threads["updated"]) == [root])
        _ = try await call(harness, "Email/set", ##""destroy":["\##(lonely)"]"##)
        let after = try await call(harness, "Thread/changes", #""sinceState":"\#(state)""#)
        #expect(strings(after["created"]) == [] && strings(after["updated"]) == [root])
        #expect(try await call(harness, "Identity/changes", #""sinceState":"0""#)["newState"]?.stringValue == "0")
    }

    @Test(
        "Email/queryChanges for the inbox and unread filters: removed what changed, added what now matches, with its index",
        arguments: StorageBackend.allCases)
    func queryChanges(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let old = try await deliver(harness, "old")
        let unread = #""filter":{"inMailbox":"inbox","notKeyword":"$seen"}"#
        let query = try await call(harness, "Email/query", unread)
        #expect(query["canCalculateChanges"] == true)
        let state = try #require(query["queryState"]?.stringValue)
        let new = try await deliver(harness, "new")
        _ = try await call(harness, "Email/set", ##""update":{"\##(old)":{"keywords/$seen":true}}"##)
        let changes = try await call(
            harness, "Email/queryChanges", #"\#(unread),"sinceQueryState":"\#(state)","calculateTotal":true"#)
        #expect(strings(changes["removed"]) == [old])
        #expect(changes["added"] == .array([.object([("id", .string(new)), ("index", 0)])]))
        #expect(changes["total"] == 1 && changes["oldQueryState"]?.stringValue == state)
        #expect(try await call(harness, "Email/queryChanges", #"\#(unread),"sinceQueryState":"\#(state)","maxChanges":1"#)["type"]
            == "tooManyChanges")
        #expect(try await call(harness, "Email/queryChanges", #"\#(unread),"sinceQueryState":"77""#)["type"]
            == "cannotCalculateChanges")
    }

    /// fastmail's queryChanges/simple.t, read against RFC 8620 section 5.6: the answer holds accountId, the two query
    /// states, removed and added (total only when asked), never the filter and sort asked with (Cyrus echoes them);
    /// a new match comes with its index in the sorted results, a destroyed one is removed, a non-match touches neither.
    @Test(
        "Email/queryChanges over a text filter sorted by subject: section 5.6's members, indexes, removals",
        arguments: StorageBackend.allCases)
    func queryChangesMembers(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let match = try await deliver(harness, "aaa")
        _ = try await deliver(harness, "bbb")
        let shape = #""filter":{"text":"aaa"},"sort":[{"property":"subject","isAscending":true}]"#
        var state = try #require(try await call(harness, "Email/query", shape)["queryState"]?.stringValue)
        func changes() async throws -> JSONValue {
            let answer = try await call(harness, "Email/queryChanges", #"\#(shape),"sinceQueryState":"\#(state)""#)
            #expect(answer["oldQueryState"]?.stringValue == state, "\(answer)")
            #expect(
                Set(answer.objectValue?.map(\.0) ?? [])
                    == ["accountId", "oldQueryState", "newQueryState", "removed", "added"], "\(answer)")
            state = try #require(answer["newQueryState"]?.stringValue)
            return answer
        }
        let none = try await changes()
        #expect(none["newQueryState"] == none["oldQueryState"] && strings(none["removed"]).isEmpty)
        #expect(none["added"] == .array([]))
        let second = try await deliver(harness, "aaa 2")
        #expect(try await changes()["added"] == .array([.object([("id", .string(second)), ("index", 1)])]))
        _ = try await deliver(harness, "bbb 2")
        #expect(try await changes()["added"] == .array([]))
        _ = try await call(harness, "Email/set", ##""destroy":["\##(match)"]"##)
        let removal = try await changes()
        #expect(strings(removal["removed"]) == [match] && removal["added"] == .array([]))
    }
}

