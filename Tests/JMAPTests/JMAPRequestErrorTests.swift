import Foundation
import PosternTestSupport
import Testing

/// Request-level errors of `POST /jmap/api` (RFC 8620 section 3.6.1): problem+json documents with status 400.
@Suite("JMAP request-level errors")
struct JMAPRequestErrorTests {
    /// Checks the problem document and returns it.
    @discardableResult
    private func expectProblem(_ response: TestResponse, type: String) throws -> [String: Any] {
        #expect(response.status == 400, "\(response.text)")
        #expect(response.header("Content-Type") == "application/problem+json")
        let problem = try response.json()
        #expect(problem["type"] as? String == "urn:ietf:params:jmap:error:\(type)", "\(problem)")
        #expect(problem["status"] as? Int == 400)
        #expect((problem["detail"] as? String)?.isEmpty == false)
        return problem
    }

    @Test("a body that is not JSON is notJSON", arguments: StorageBackend.allCases)
    func notJSON(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("requestagent")
        try expectProblem(try await harness.post(body: Array("nope".utf8), token: agent.capability), type: "notJSON")
    }

    @Test(
        "a duplicate key or nesting past 32 is notJSON (the one request-body rule); 32 deep is read",
        arguments: StorageBackend.allCases)
    func unreadableJSON(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("requestagent")
        let core = JMAPHarness.core
        let duplicate = #"{"using":["\#(core)"],"using":[],"methodCalls":[["Core/echo",{},"c0"]]}"#
        try expectProblem(try await harness.post(body: Array(duplicate.utf8), token: agent.capability), type: "notJSON")
        // The request object, methodCalls, the call and its arguments are four levels; `x` adds the rest.
        func echo(depth: Int) -> [UInt8] {
            let x = String(repeating: "[", count: depth - 4) + String(repeating: "]", count: depth - 4)
            return Array(#"{"using":["\#(core)"],"methodCalls":[["Core/echo",{"x":\#(x)},"c0"]]}"#.utf8)
        }
        try expectProblem(try await harness.post(body: echo(depth: 33), token: agent.capability), type: "notJSON")
        let read = try await harness.post(body: echo(depth: 32), token: agent.capability)
        #expect(read.status == 200, "\(read.text)")
    }

    @Test("JSON that is not a request object is notRequest", arguments: StorageBackend.allCases)
    func notRequest(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("requestagent")
        try expectProblem(try await harness.post(body: Array("{}".utf8), token: agent.capability), type: "notRequest")
        try expectProblem(try await harness.post(body: Array("[]".utf8), token: agent.capability), type: "notRequest")
        try expectProblem(
            try await harness.post(
                ["using": [JMAPHarness.core], "methodCalls": [["Core/echo", ["a": 1]]]], token: agent.capability),
            type: "notRequest")
    }

    @Test("an unknown capability in `using` is unknownCapability", arguments: StorageBackend.allCases)
    func unknownCapability(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("requestagent")
        let problem = try expectProblem(
            try await harness.post(
                ["using": [JMAPHarness.core, "urn:x"], "methodCalls": [["Core/echo", [:] as [String: Any], "c0"]]],
                token: agent.capability),
            type: "unknownCapability")
        #expect((problem["detail"] as? String)?.contains("urn:x") == true)
    }

    @Test("33 method calls pass maxCallsInRequest: limit", arguments: StorageBackend.allCases)
    func tooManyCalls(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("requestagent")
        let echo: (Int) -> [Any] = { ["Core/echo", ["n": $0], "c\($0)"] }

        let problem = try expectProblem(
            try await harness.post(
                ["using": [JMAPHarness.core], "methodCalls": (0..<33).map(echo)], token: agent.capability),
            type: "limit")
        #expect(problem["limit"] as? String == "maxCallsInRequest")

        // 32 is still fine.
        let responses = try await harness.call(agent, (0..<32).map(echo), using: [JMAPHarness.core])
        #expect(responses.count == 32)
        #expect(responses.allSatisfy { $0.name == "Core/echo" })
        #expect(responses.last?.callID == "c31")
        #expect(responses.last?.arguments["n"] as? Int == 31)
    }
}
