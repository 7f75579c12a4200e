import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// Integer arguments at the edges of their range (a negative `limit`, an `offset`/`length` or `anchorOffset` near
/// Int64.max) must be answered — with `invalidArguments`, a set error, or a clamped result — never bring the
/// server down. Each test runs `postern serve` as a child process, so that a trap fails that test alone.
@Suite("JMAP integer arguments at their bounds")
struct JMAPIntegerBoundsTests {
    static let huge = Int64.max

    /// The responses; when the server did not answer, an issue with the server's output, and the error thrown on.
    private func answered(_ harness: JMAPHarness, _ agent: JMAPAgent, _ calls: [[Any]]) async throws
        -> [JMAPInvocation]
    {
        do {
            return try await harness.call(agent, calls)
        } catch {
            Issue.record("the server did not answer (\(error)); its output:\n\(harness.output)")
            throw error
        }
    }

    private func expectStillServing(_ harness: JMAPHarness, _ agent: JMAPAgent) async {
        let echo = try? await harness.call(agent, [["Core/echo", ["ok": true], "e"]])
        #expect(echo?.first?.name == "Core/echo", "the server stopped answering; its output:\n\(harness.output)")
        #expect(harness.isRunning)
    }

    @Test("Mailbox/query with a negative limit is invalidArguments")
    func mailboxQueryNegativeLimit() async throws {
        let harness = try await JMAPHarness.startProcess()
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("boundsagent")

        let fine = try await harness.single(agent, "Mailbox/query", ["accountId": agent.accountID, "limit": 2])
        #expect(fine.arguments["ids"] as? [String] == ["inbox", "drafts"])

        let responses = try await answered(harness, agent, [
            ["Mailbox/query", ["accountId": agent.accountID, "limit": -1], "c0"]
        ])
        #expect(responses.first?.name == "error", "\(responses.map(\.arguments))")
        #expect(responses.first?.arguments["type"] as? String == "invalidArguments")
        await expectStillServing(harness, agent)
    }

    @Test("Blob/get with offset 1 and length Int64.max is answered (truncated or invalidArguments)")
    func blobGetHugeLength() async throws {
        let harness = try await JMAPHarness.startProcess()
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("boundsagent")
        let upload = try await harness.single(
            agent, "Blob/upload", ["accountId": agent.accountID, "create": ["b1": ["data": [["data:asText": "hello"]]]]])
        let blobID = try #require(
            (upload.object("created")?["b1"] as? [String: Any])?["id"] as? String, "\(upload.arguments)")

        let slice = try await harness.single(
            agent, "Blob/get",
            ["accountId": agent.accountID, "ids": [blobID], "properties": ["data:asText"], "offset": 1, "length": 3])
        #expect((slice.arguments["list"] as? [[String: Any]])?.first?["data:asText"] as? String == "ell")

        let responses = try await answered(harness, agent, [
            ["Blob/get",
             ["accountId": agent.accountID, "ids": [blobID], "properties": ["data:asText"], "offset": 1,
              "length": Self.huge],
             "c0"]
        ])
        let response = try #require(responses.first)
        if response.name == "Blob/get" {
            let item = (response.arguments["list"] as? [[String: Any]])?.first
            #expect(item?["data:asText"] as? String == "ello", "\(response.arguments)")
            #expect(item?["isTruncated"] as? Bool == true, "\(response.arguments)")
        } else {
            #expect(response.arguments["type"] as? String == "invalidArguments", "\(response.arguments)")
        }
        await expectStillServing(harness, agent)
    }

    @Test("Blob/upload of a slice with offset 1 and length Int64.max is notCreated")
    func blobUploadHugeSlice() async throws {
        let harness = try await JMAPHarness.startProcess()
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("boundsagent")

        // Two calls, so that b1 exists before b2 refers to it (the keys of one `create` have no order here).
        let first: [Any] = [
            "Blob/upload", ["accountId": agent.accountID, "create": ["b1": ["data": [["data:asText": "hello"]]]]], "u1",
        ]
        let fine = try await harness.call(agent, [
            first,
            ["Blob/upload",
             ["accountId": agent.accountID, "create": ["b2": ["data": [["blobId": "#b1", "offset": 1, "length": 3]]]]],
             "u2"],
        ])
        try #require(fine.count == 2)
        #expect((fine[1].object("created")?["b2"] as? [String: Any])?["size"] as? Int == 3, "\(fine[1].arguments)")

        let responses = try await answered(harness, agent, [
            first,
            ["Blob/upload",
             ["accountId": agent.accountID,
              "create": ["b2": ["data": [["blobId": "#b1", "offset": 1, "length": Self.huge]]]]],
             "u2"],
        ])
        try #require(responses.count == 2)
        #expect(responses[0].object("created")?["b1"] != nil)
        let response = responses[1]
        #expect(response.name == "Blob/upload", "\(response.arguments)")
        #expect(response.object("notCreated")?["b2"] != nil, "\(response.arguments)")
        await expectStillServing(harness, agent)
    }

    @Test("Email/query with an anchor and anchorOffset Int64.max is answered")
    func emailQueryHugeAnchorOffset() async throws {
        let harness = try await JMAPHarness.startProcess()
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("boundsagent")
        let draft: (String) -> [String: Any] = { subject in
            [
                "mailboxIds": ["drafts": true], "from": [["email": agent.address]], "subject": subject,
                "textBody": [["partId": "b", "type": "text/plain"]], "bodyValues": ["b": ["value": subject]],
            ]
        }
        let created = try await harness.single(
            agent, "Email/set", ["accountId": agent.accountID, "create": ["d1": draft("one"), "d2": draft("two")]])
        #expect(created.object("created")?.count == 2, "\(created.arguments)")
        let ids = try await harness.ids(agent, in: "drafts")
        try #require(ids.count == 2)

        let fine = try await harness.single(
            agent, "Email/query", ["accountId": agent.accountID, "anchor": ids[1], "anchorOffset": -1])
        #expect(fine.arguments["ids"] as? [String] == ids, "\(fine.arguments)")

        let responses = try await answered(harness, agent, [
            ["Email/query", ["accountId": agent.accountID, "anchor": ids[1], "anchorOffset": Self.huge], "c0"]
        ])
        let response = try #require(responses.first)
        if response.name == "Email/query" {
            #expect((response.arguments["ids"] as? [String])?.isEmpty == true, "\(response.arguments)")
        } else {
            #expect(response.arguments["type"] as? String == "invalidArguments", "\(response.arguments)")
        }
        await expectStillServing(harness, agent)
    }
}
