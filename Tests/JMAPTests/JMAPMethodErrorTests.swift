import Foundation
import PosternTestSupport
import Testing

/// Method-level errors (RFC 8620 section 3.6.2): `["error", {"type", …}, callId]` inside a 200 response, the
/// other calls of the request still answered.
@Suite("JMAP method-level errors")
struct JMAPMethodErrorTests {
    private func expectError(_ invocation: JMAPInvocation, _ type: String, callID: String = "c0") {
        #expect(invocation.name == "error", "\(invocation.name) \(invocation.arguments)")
        #expect(invocation.arguments["type"] as? String == type, "\(invocation.arguments)")
        #expect(invocation.callID == callID)
    }

    @Test(
        "an unknown method, or a method whose capability `using` lacks, is unknownMethod",
        arguments: StorageBackend.allCases)
    func unknownMethod(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")

        expectError(try await harness.single(agent, "Nothing/here", ["accountId": agent.accountID]), "unknownMethod")
        expectError(
            try await harness.single(
                agent, "Email/get", ["accountId": agent.accountID, "ids": []], using: [JMAPHarness.core]),
            "unknownMethod")
        expectError(
            try await harness.single(
                agent, "EmailSubmission/set", ["accountId": agent.accountID],
                using: [JMAPHarness.core, JMAPHarness.mail]),
            "unknownMethod")
        // With the capability the same Email/get works.
        let get = try await harness.single(
            agent, "Email/get", ["accountId": agent.accountID, "ids": []],
            using: [JMAPHarness.core, JMAPHarness.mail])
        #expect(get.name == "Email/get")
    }

    @Test("an accountId other than the token's is accountNotFound", arguments: StorageBackend.allCases)
    func accountNotFound(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")
        let other = try await harness.signUp("otheragent")

        expectError(try await harness.single(agent, "Mailbox/get", ["accountId": "nope"]), "accountNotFound")
        expectError(try await harness.single(agent, "Mailbox/get", ["accountId": other.accountID]), "accountNotFound")
        expectError(
            try await harness.single(agent, "Email/query", ["accountId": other.accountID]), "accountNotFound")
    }

    @Test("arguments of the wrong type are invalidArguments; the request goes on", arguments: StorageBackend.allCases)
    func invalidArguments(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")

        let responses = try await harness.call(agent, [
            ["Email/get", ["accountId": agent.accountID, "ids": "not-an-array"], "c0"],
            ["Mailbox/get", ["accountId": agent.accountID], "c1"],
            ["Email/query", ["accountId": agent.accountID, "limit": "ten"], "c2"],
            ["Mailbox/get", [:] as [String: Any], "c3"],
        ])
        try #require(responses.count == 4)
        expectError(responses[0], "invalidArguments", callID: "c0")
        #expect(responses[1].name == "Mailbox/get")
        #expect(responses[1].callID == "c1")
        expectError(responses[2], "invalidArguments", callID: "c2")
        expectError(responses[3], "invalidArguments", callID: "c3")
    }

    @Test(
        "a result reference to an unknown call id, or naming the wrong method, is invalidResultReference",
        arguments: StorageBackend.allCases)
    func invalidResultReference(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")

        let responses = try await harness.call(agent, [
            ["Email/query", ["accountId": agent.accountID], "q"],
            ["Email/get",
             ["accountId": agent.accountID, "#ids": ["resultOf": "missing", "name": "Email/query", "path": "/ids"]],
             "g1"],
            ["Email/get",
             ["accountId": agent.accountID, "#ids": ["resultOf": "q", "name": "Mailbox/get", "path": "/ids"]],
             "g2"],
            ["Email/get",
             ["accountId": agent.accountID, "#ids": ["resultOf": "q", "name": "Email/query", "path": "/ids"]],
             "g3"],
        ])
        try #require(responses.count == 4)
        #expect(responses[0].name == "Email/query")
        expectError(responses[1], "invalidResultReference", callID: "g1")
        expectError(responses[2], "invalidResultReference", callID: "g2")
        // The right reference resolves (to an empty list here).
        #expect(responses[3].name == "Email/get", "\(responses[3].arguments)")
        #expect((responses[3].arguments["list"] as? [Any])?.isEmpty == true)
    }

    /// Every condition of RFC 8621 section 4.4.1 is served; a name outside them (Fastmail's own attachmentName) is not.
    @Test("Email/query on a condition it does not know is unsupportedFilter", arguments: StorageBackend.allCases)
    func unsupportedFilter(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")
        expectError(
            try await harness.single(
                agent, "Email/query", ["accountId": agent.accountID, "filter": ["attachmentName": "x.pdf"]]),
            "unsupportedFilter")
    }

    @Test("Email/query sorted by an unknown property is unsupportedSort", arguments: StorageBackend.allCases)
    func unsupportedSort(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")
        expectError(
            try await harness.single(
                agent, "Email/query",
                ["accountId": agent.accountID, "sort": [["property": "hasKeyword", "keyword": "$seen"]]]),
            "unsupportedSort")
    }

    @Test(
        "Email/query with an anchor that is not among the results is anchorNotFound",
        arguments: StorageBackend.allCases)
    func anchorNotFound(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")
        expectError(
            try await harness.single(agent, "Email/query", ["accountId": agent.accountID, "anchor": "no-such-id"]),
            "anchorNotFound")
    }

    @Test(
        "Email/set with an ifInState that is not the state is stateMismatch and writes nothing",
        arguments: StorageBackend.allCases)
    func stateMismatch(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")
        let create: [String: Any] = [
            "d1": [
                "mailboxIds": ["drafts": true], "from": [["email": agent.address]], "subject": "never",
                "textBody": [["partId": "b", "type": "text/plain"]], "bodyValues": ["b": ["value": "x"]],
            ] as [String: Any],
        ]
        expectError(
            try await harness.single(
                agent, "Email/set", ["accountId": agent.accountID, "ifInState": "999", "create": create]),
            "stateMismatch")
        #expect(try await harness.ids(agent, in: "drafts").isEmpty)
    }

    @Test(
        "Email/changes from a state never issued, or not a state, is cannotCalculateChanges",
        arguments: StorageBackend.allCases)
    func cannotCalculateChanges(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")
        for state in ["999", "abc"] {
            expectError(
                try await harness.single(agent, "Email/changes", ["accountId": agent.accountID, "sinceState": state]),
                "cannotCalculateChanges")
        }
    }

    @Test("Email/get without ids is requestTooLarge", arguments: StorageBackend.allCases)
    func requestTooLarge(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("methodagent")
        expectError(try await harness.single(agent, "Email/get", ["accountId": agent.accountID]), "requestTooLarge")
        expectError(
            try await harness.single(agent, "Email/get", ["accountId": agent.accountID, "ids": NSNull()]),
            "requestTooLarge")
    }
}
