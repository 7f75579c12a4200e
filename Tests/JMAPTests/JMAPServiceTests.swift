import Directory
import HTTP1
import JMAP
import JSON
import MailStore
import PosternTestSupport
import Testing

/// JMAP driven through its routes with a fake directory and authenticator: what it serves is the principal it is
/// given, whatever bearer proved it.
@Suite("JMAP service without a server", .serialized)
struct JMAPServiceTests {
    @Test(
        "the session is the principal's: its account id, its address as username, the base URL's endpoints",
        arguments: StorageBackend.allCases)
    func session(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let response = await harness.send(.GET, "/.well-known/jmap", bearer: "ada")
        #expect(response.status.code == 200)
        let body = try JSONValue.parse(response.body)
        #expect(body["username"]?.stringValue == "ada@agents.test")
        #expect(body["accounts"]?.objectValue?.map(\.0) == ["acct-ada"])
        #expect(body["accounts"]?["acct-ada"]?["name"]?.stringValue == "ada@agents.test")
        #expect(body["primaryAccounts"]?["urn:ietf:params:jmap:mail"]?.stringValue == "acct-ada")
        #expect(body["apiUrl"]?.stringValue == "http://jmap.test/jmap/api")
        // The folders a person makes (decision 35): top level and nested to the store's depth, one folder a message.
        let mail = body["accounts"]?["acct-ada"]?["accountCapabilities"]?["urn:ietf:params:jmap:mail"]
        #expect(mail?["mayCreateTopLevelMailbox"] == .bool(true))
        #expect(mail?["maxMailboxDepth"] == .int(16))
        #expect(mail?["maxSizeMailboxName"] == .int(255))
        #expect(mail?["maxMailboxesPerEmail"] == .int(1))
    }

    @Test("no bearer, or one the authenticator does not know: 401 on every route", arguments: StorageBackend.allCases)
    func unauthorized(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        for bearer in [nil, "mallory"] as [String?] {
            #expect(await harness.send(.GET, "/.well-known/jmap", bearer: bearer).status.code == 401)
            #expect(await harness.send(.POST, "/jmap/api", bearer: bearer, body: "{}").status.code == 401)
            #expect(await harness.send(.POST, "/jmap/upload/acct-ada", bearer: bearer, body: "x").status.code == 401)
            #expect(await harness.send(.GET, "/jmap/download/acct-ada/b1/n", bearer: bearer).status.code == 401)
        }
        #expect(harness.unexpected.all.isEmpty)
    }

    @Test(
        "an authenticator that fails is a bare 500 without internals, reported with the request id",
        arguments: StorageBackend.allCases)
    func authenticatorFailure(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let response = await harness.send(.GET, "/.well-known/jmap", bearer: "broken")
        #expect(response.status.code == 500)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(!text.contains("DirectoryDown"))
        #expect(try JSONValue.parse(response.body)["detail"]?.stringValue == "The server could not complete the request; try again.")
        #expect(harness.unexpected.all == ["jmap-test"])
    }

    @Test(
        "every method in the table answers under its capability; one whose capability `using` lacks is unknownMethod",
        arguments: StorageBackend.allCases)
    func methodTable(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let names = [
            "Mailbox/get", "Mailbox/query", "Email/query", "Thread/get", "Identity/get", "Blob/get", "Email/get",
            "Email/set", "EmailSubmission/set", "Blob/upload", "Mailbox/changes", "Email/changes",
            "Thread/changes", "Identity/changes", "Email/queryChanges", "Mailbox/queryChanges",
            "EmailSubmission/get", "EmailSubmission/changes", "EmailSubmission/query", "EmailSubmission/queryChanges",
        ]
        let calls = names.enumerated().map { ##"["\##($1)",{"accountId":"acct-ada","ids":[]},"c\##($0)"]"## }
        let responses = try await harness.api("ada", "[" + calls.joined(separator: ",") + ##",["Core/echo",{"x":1},"e"]]"##)
        #expect(responses.count == names.count + 1)
        for (index, response) in responses.enumerated() {
            #expect(response.arrayValue?[0].stringValue != "error" || response.arrayValue?[1]["type"]?.stringValue != "unknownMethod", "\(names[safe: index] ?? "echo")")
        }
        #expect(responses.last?.arrayValue?[0].stringValue == "Core/echo")
        #expect(responses.last?.arrayValue?[1] == .object([("x", 1)]))
        let changes = responses[names.firstIndex(of: "Email/changes")!]
        #expect(changes.arrayValue?[1]["type"]?.stringValue == "invalidArguments", "no sinceState")

        let mailOnly = await harness.send(
            .POST, "/jmap/api", bearer: "ada",
            body: ##"{"using":["urn:ietf:params:jmap:core"],"methodCalls":[["Mailbox/get",{"accountId":"acct-ada"},"m"],["Nope/get",{},"n"]]}"##)
        let answers = try #require(try JSONValue.parse(mailOnly.body)["methodResponses"]?.arrayValue)
        #expect(answers.map { $0.arrayValue?[1]["type"]?.stringValue } == ["unknownMethod", "unknownMethod"])
    }

    @Test(
        "another account's id is accountNotFound: a principal opens its own account only",
        arguments: StorageBackend.allCases)
    func otherAccount(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let responses = try await harness.api("ada", ##"[["Mailbox/get",{"accountId":"acct-bob"},"m"]]"##)
        #expect(responses.first?.arrayValue?[1]["type"]?.stringValue == "accountNotFound")
    }

    @Test(
        "submission: local recipients through the directory get it now, foreign ones wait in the outbox, unknown ones refuse it",
        arguments: StorageBackend.allCases)
    func submission(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let draft = ##"["Email/set",{"accountId":"acct-ada","create":{"d1":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"to":[{"email":"bob@mail.test"},{"email":"carol@elsewhere.test"}],"subject":"Hi","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"Hello"}}}}},"c0"]"##
        let submit = ##"["EmailSubmission/set",{"accountId":"acct-ada","create":{"s1":{"emailId":"#d1"}}},"c1"]"##
        let responses = try await harness.api("ada", "[\(draft),\(submit)]")
        let status = try #require(responses[1].arrayValue?[1]["created"]?["s1"]?["deliveryStatus"])
        #expect(status["bob@mail.test"]?["delivered"]?.stringValue == "yes")
        #expect(status["carol@elsewhere.test"]?["delivered"]?.stringValue == "no")
        let outcomes = harness.submissions.all.map { [$0.delivered, $0.keptInOutbox, $0.refused] }
        #expect(outcomes == [[1, 1, 0]])
        #expect(try await harness.store.page(address: "bob@mail.test", page: 1).map(\.subject) == ["Hi"])
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@elsewhere.test"]])

        let unknown = ##"["Email/set",{"accountId":"acct-ada","create":{"d2":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"to":[{"email":"nobody@mail.test"}],"subject":"Lost","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"?"}}}}},"c0"]"##
        let refused = try await harness.api(
            "ada", ##"[\##(unknown),["EmailSubmission/set",{"accountId":"acct-ada","create":{"s2":{"emailId":"#d2"}}},"c1"]]"##)
        let error = try #require(refused[1].arrayValue?[1]["notCreated"]?["s2"])
        #expect(error["type"]?.stringValue == "invalidRecipients")
        #expect(error["invalidRecipients"] == .array(["nobody@mail.test"]))
        #expect(harness.submissions.all.count == 1)
    }

    @Test(
        "an account whose own address is no longer local cannot send: forbiddenFrom, nothing delivered or kept",
        arguments: StorageBackend.allCases)
    func senderNoLongerLocal(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let draft = ##"["Email/set",{"accountId":"acct-gone","create":{"d1":{"mailboxIds":{"drafts":true},"from":[{"email":"support@released.test"}],"to":[{"email":"bob@mail.test"},{"email":"carol@elsewhere.test"}],"subject":"Reset","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"Hello"}}}}},"c0"]"##
        let submit = ##"["EmailSubmission/set",{"accountId":"acct-gone","create":{"s1":{"emailId":"#d1"}}},"c1"]"##
        let responses = try await harness.api("gone", "[\(draft),\(submit)]")
        let error = try #require(responses[1].arrayValue?[1]["notCreated"]?["s1"])
        #expect(error["type"]?.stringValue == "forbiddenFrom")
        #expect(error["description"]?.stringValue?.contains("support@released.test") == true)
        #expect(try await harness.store.page(address: "bob@mail.test", page: 1).isEmpty)
        #expect(try await harness.store.outbox().isEmpty)
        #expect(harness.submissions.all.isEmpty)
    }

    @Test("Reply-To may not name another mailbox on a domain the directory serves", arguments: StorageBackend.allCases)
    func replyToRule(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let draft = ##"["Email/set",{"accountId":"acct-ada","create":{"d1":{"mailboxIds":{"drafts":true},"from":[{"email":"ada@agents.test"}],"replyTo":[{"email":"someone@mail.test"}],"to":[{"email":"bob@mail.test"}],"subject":"Hi","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"Hello"}}}}},"c0"]"##
        let submit = ##"["EmailSubmission/set",{"accountId":"acct-ada","create":{"s1":{"emailId":"#d1"}}},"c1"]"##
        let responses = try await harness.api("ada", "[\(draft),\(submit)]")
        #expect(responses[1].arrayValue?[1]["notCreated"]?["s1"]?["type"]?.stringValue == "forbiddenFrom")
        #expect(try await harness.store.page(address: "bob@mail.test", page: 1).isEmpty)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
