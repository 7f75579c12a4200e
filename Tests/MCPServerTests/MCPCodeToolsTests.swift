import JSON
import PosternTestSupport
import Testing

/// The MCP tools over what Postern found in a message at delivery (issue 85): `get_verification_code`, `get_links`
/// and `wait_for_message`'s `has_code` and `link_kind` (SQLite and PostgreSQL).
@Suite("MCP: get_verification_code, get_links, wait_for_message on codes and link kinds")
struct MCPCodeToolsTests {
    static func deliver(_ raw: String, _ harness: MCPServiceHarness) async throws {
        #expect(try await harness.deliverToBob(raw, from: "no-reply@acme.example"))
    }

    static func run(_ harness: MCPServiceHarness, _ session: String, _ name: String, _ arguments: String) async throws
        -> JSONValue
    {
        let result = try await harness.tool(name, arguments, key: "bob-key", session: session)
        #expect(result["isError"] == false, "\(name): \(result)")
        return try MCPServiceHarness.json(result)
    }

    @Test(
        "an HTML-only verification mail: its code with the message id, its links by kind, wrapped as untrusted",
        arguments: StorageBackend.allCases)
    func codeAndLinks(_ backend: StorageBackend) async throws {
        let harness = try MCPServiceHarness(backend)
        let bob = try await harness.initialize("bob-key")
        let none = try await Self.run(harness, bob, "get_verification_code", "{}")
        #expect(none["code"] == .null && none["reason"]?.stringValue?.contains("no message") == true)

        try await Self.deliver(VerificationMail.raw(to: "bob@agents.test"), harness)
        try await Self.deliver(VerificationMail.newsletter(to: "bob@agents.test"), harness)
        let found = try await Self.run(harness, bob, "get_verification_code", "{}")
        #expect(found["code"]?.stringValue == VerificationMail.code && found["source"] == "html")
        #expect(found["alternatives"] == [])
        #expect(MCPServiceHarness.untrusted(found["subject"]) == "Confirm your Acme account")
        let id = try #require(found["message_id"]?.stringValue)
        #expect(try await harness.store.exists(address: "bob@agents.test", id: id))

        let noCode = try await Self.run(harness, bob, "get_verification_code", #"{"subject":"October"}"#)
        #expect(noCode["code"] == .null)
        #expect(noCode["reason"]?.stringValue?.contains("carry no one-time code") == true)

        let links = try await Self.run(harness, bob, "get_links", #"{"message_id":"\#(id)"}"#)
        let first = try #require(links["links"]?.arrayValue?.first)
        #expect(MCPServiceHarness.untrusted(first["url"]) == VerificationMail.verifyURL)
        #expect(MCPServiceHarness.untrusted(first["text"]) == "Verify email" && first["kind"] == "verify")
        let unsubscribe = try await Self.run(
            harness, bob, "get_links", #"{"message_id":"\#(id)","kind":"unsubscribe"}"#)
        #expect(unsubscribe["links"]?.arrayValue?.map { $0["kind"] } == ["unsubscribe"])
        let missing = try await harness.tool("get_links", #"{"message_id":"nope"}"#, key: "bob-key", session: bob)
        #expect(missing["isError"] == true)
    }

    @Test("wait_for_message with has_code passes over mail without one and wakes on the delivery of a code",
        arguments: StorageBackend.allCases)
    func waitForACode(_ backend: StorageBackend) async throws {
        let harness = try MCPServiceHarness(backend)
        let bob = try await harness.initialize("bob-key")
        try await Self.deliver(VerificationMail.newsletter(to: "bob@agents.test"), harness)
        let nothing = try await Self.run(harness, bob, "wait_for_message", #"{"has_code":true,"timeout_seconds":0}"#)
        #expect(nothing["message"] == .null && nothing["timed_out"] == true)

        let waiting = Task {
            try await Self.run(
                harness, bob, "wait_for_message", #"{"has_code":true,"link_kind":"verify","timeout_seconds":20}"#)
        }
        try await Task.sleep(for: .milliseconds(200))
        let sent = ContinuousClock.now
        try await Self.deliver(VerificationMail.raw(to: "bob@agents.test"), harness)
        let got = try await waiting.value
        // Well within the 20 s asked: woken by the delivery, not by the timeout (a loaded test process is slow).
        #expect(ContinuousClock.now - sent < .seconds(5))
        #expect(got["timed_out"] == false)
        #expect(MCPServiceHarness.untrusted(got["message"]?["subject"]) == "Confirm your Acme account")
        #expect(got["codes"] == [.string(VerificationMail.code)])
        #expect(got["links"]?.arrayValue?.first?["kind"] == "verify")
        // It was marked read: the newsletter is unread but has no code.
        let again = try await Self.run(harness, bob, "wait_for_message", #"{"has_code":true,"timeout_seconds":0}"#)
        #expect(again["message"] == .null)
    }
}
