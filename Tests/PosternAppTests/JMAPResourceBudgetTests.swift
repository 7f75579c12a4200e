import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// What one request may make the server hold or write (issue 32): result references that double an answer at
/// every call, a big message asked for many times, and blobs copied from blobs. Each test runs `postern serve` as a
/// child process under a 3 GiB address-space limit, where the attack used to end the process, and checks that the
/// server still answers afterwards.
@Suite("JMAP response and blob budgets")
struct JMAPResourceBudgetTests {
    static let addressSpace = 3 << 30

    /// `Core/echo` calls that each repeat the previous answer twice: 2^n times the first argument.
    static func doublingEchoes(_ count: Int) -> [[Any]] {
        var calls: [[Any]] = [["Core/echo", ["seed": String(repeating: "x", count: 4096)], "e0"]]
        for index in 1..<count {
            let previous: [String: Any] = ["resultOf": "e\(index - 1)", "name": "Core/echo", "path": ""]
            calls.append(["Core/echo", ["#a": previous, "#b": previous], "e\(index)"])
        }
        return calls
    }

    private func expectServing(_ harness: JMAPHarness) async {
        let health = try? await harness.client.request("GET", "/healthz")
        #expect(health?.status == 200, "the server stopped answering; its output:\n\(harness.output)")
        #expect(harness.isRunning)
    }

    @Test("31 echo calls doubling one 4 KiB value: the calls past 32 MiB answer requestTooLarge, the server lives")
    func doublingReferences() async throws {
        let harness = try await JMAPHarness.startProcess(addressSpace: Self.addressSpace)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("amplifier")

        let response: TestResponse
        do {
            response = try await harness.post(
                ["using": [JMAPHarness.core], "methodCalls": Self.doublingEchoes(31)], token: agent.capability)
        } catch {
            // Who ended it: the client (TestClientError.timedOut) or the server (.closed; its output says why).
            Issue.record("\(error); the server's output:\n\(harness.output)")
            throw error
        }
        #expect(response.status == 200, "\(response.status): \(response.text.prefix(300))\n\(harness.output)")
        let budget = 32 * 1024 * 1024 + 64 * 1024
        #expect(response.body.count <= budget, "\(response.body.count) bytes")
        let body = try response.json()
        let list = try #require(body["methodResponses"] as? [[Any]])
        #expect(list.count == 31)
        // 4 KiB doubled 12 times is 16 MiB, and the answers before it as much again: the first twelve calls are
        // answered whole, the thirteenth is refused, and the calls that refer to it find no echo to read.
        let names = list.map { $0[0] as? String ?? "" }
        #expect(names.prefix(12).allSatisfy { $0 == "Core/echo" }, "\(names)")
        #expect(names.dropFirst(12).allSatisfy { $0 == "error" }, "\(names)")
        let refused = try #require(list[12][1] as? [String: Any])
        #expect(refused["type"] as? String == "requestTooLarge", "\(refused)")
        await expectServing(harness)
    }

    @Test("Blob/get of one big blob 500 times stops at the budget instead of encoding 500 copies")
    func repeatedBlobGet() async throws {
        let harness = try await JMAPHarness.startProcess(addressSpace: Self.addressSpace)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("bigreader")
        let blobID = try await upload(harness, agent, bytes: 4 * 1024 * 1024)

        let get = try await harness.single(
            agent, "Blob/get",
            ["accountId": agent.accountID, "ids": Array(repeating: blobID, count: 500), "properties": ["data:asBase64"]])
        #expect(JMAPHarness.errorType(get) == "requestTooLarge", "\(get.name) \(get.arguments.keys)")
        let few = try await harness.single(
            agent, "Blob/get",
            ["accountId": agent.accountID, "ids": [blobID, blobID], "properties": ["size"]])
        #expect((few.arguments["list"] as? [Any])?.count == 2, "small answers still pass: \(few.arguments)")
        await expectServing(harness)
    }

    @Test("Blob/upload copying a blob into many blobs: 20 MiB created per request, then the quota; nothing past it")
    func blobCopies() async throws {
        let harness = try await JMAPHarness.startProcess(addressSpace: Self.addressSpace)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("blobcopier")
        let megabyte = 1024 * 1024
        let source = try await upload(harness, agent, bytes: megabyte)

        // Ten blobs of eight slices of the 1 MiB blob each: a 1 KiB request for 80 MiB.
        func copies(_ count: Int) -> [String: Any] {
            let slices = Array(repeating: ["blobId": source] as [String: Any], count: 8)
            var create: [String: Any] = [:]
            for index in 0..<count { create["c\(index)"] = ["data": slices] }
            return ["accountId": agent.accountID, "create": create]
        }
        var created = 0
        for round in 0..<3 {
            let answer = try await harness.single(agent, "Blob/upload", copies(10))
            let made = (answer.object("created") ?? [:]).count
            let refused = try #require(answer.object("notCreated") as? [String: [String: Any]], "\(answer.arguments)")
            let types = Set(refused.values.compactMap { $0["type"] as? String })
            // 8 MiB blobs: two fit in one request's 20 MiB; the 40 MiB quota (with the 1 MiB source) holds four.
            #expect(made == (round < 2 ? 2 : 0), "round \(round): \(made) created, \(types)")
            #expect(types.isSubset(of: ["tooLarge", "overQuota"]), "\(types)")
            if round == 2 { #expect(types == ["overQuota"]) }
            created += made
        }
        #expect(created == 4)
        let upload = try await harness.client.request(
            "POST", "/jmap/upload/\(agent.accountID)",
            headers: [("Authorization", "Bearer \(agent.capability)"), ("Content-Type", "application/octet-stream")],
            body: [UInt8](repeating: 7, count: 8 * megabyte))
        #expect(upload.status == 413, "the upload URL answers the full quota too: \(upload.status) \(upload.text)")
        #expect((try? upload.json()["type"] as? String) == "urn:ietf:params:jmap:error:overQuota")
        await expectServing(harness)
    }

    /// Uploads `bytes` bytes through the upload URL; returns the blob id.
    private func upload(_ harness: JMAPHarness, _ agent: JMAPAgent, bytes: Int) async throws -> String {
        let response = try await harness.client.request(
            "POST", "/jmap/upload/\(agent.accountID)",
            headers: [("Authorization", "Bearer \(agent.capability)"), ("Content-Type", "application/octet-stream")],
            body: (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try #require(response.status == 201, "\(response.status) \(response.text)")
        return try #require(try response.json()["blobId"] as? String)
    }
}
