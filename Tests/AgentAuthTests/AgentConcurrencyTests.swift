import ComputePool
import Foundation
import HTTP1
import PosternTestSupport
import Testing

@testable import AgentAuth

@Suite("Races and overload", .timeLimit(.minutes(1)))
struct AgentConcurrencyTests {
    @Test("24 parallel submissions of one solution yield exactly one session", arguments: StorageBackend.allCases)
    func race(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 2)
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: challenge.difficulty)
        let body = AgentHarness.sessionBody(solution, "username", "raceagent")
        let responses = await withTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<24 {
                group.addTask { await harness.send(.POST, "/api/v1/session", bearer: challenge.token, body: body) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 24)
        #expect(responses.filter { $0.status.code == 201 }.count == 1)
        let refused = responses.filter { $0.status.code != 201 }
        #expect(refused.count == 23)
        for response in refused {
            expectError(response, .invalidChallenge)
        }
        let count = try harness.database.readSync { try $0.query("SELECT count(*) AS n FROM agent_accounts") }
        #expect(count.first?.int("n") == 1)
    }

    @Test("Two signups of one name with two challenges at once: one 201, one 409", arguments: StorageBackend.allCases)
    func usernameRace(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<2 {
                group.addTask { try await harness.session("username", "samename") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.map(\.status.code).sorted() == [201, 409])
        #expect(responses.contains { $0.errorMessage == "Username already taken" })
    }

    @Test(
        "A saturated worker pool answers 503 in the agent error shape; a capability on SQLite does not need it",
        arguments: StorageBackend.allCases)
    func overloaded(_ backend: StorageBackend) async throws {
        let pool = WorkerPool(threads: 1, queueLimit: 0)
        let harness = try AgentHarness(backend, difficulty: 0, pool: pool)
        let (_, session) = try await harness.signup("busyagent")
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: 0)

        let gate = Gate()
        let blocker = Task { try await pool.run { gate.hold() } }
        while !gate.isHeld { try await Task.sleep(for: .milliseconds(5)) }
        let busySession = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token, body: AgentHarness.sessionBody(solution, "apiKey", "k"))
        let busyCapability = await harness.send(.POST, "/api/v1/capability", bearer: session)
        gate.release()
        try await blocker.value

        expectError(busySession, .overloaded)
        #expect(busySession.headers["Retry-After"] == "2")
        if backend == .sqlite {
            // Short work on SQLite: the capability signs where it was asked, never queueing for the pool.
            #expect(busyCapability.status.code == 200)
        } else {
            expectError(busyCapability, .overloaded)
        }
        #expect(await harness.send(.POST, "/api/v1/capability", bearer: session).status.code == 200)
    }
}

/// Holds a worker thread until released.
///
/// `@unchecked Sendable`: `held` is guarded by `condition`.
private final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var held = false
    private var released = false

    var isHeld: Bool {
        condition.lock()
        defer { condition.unlock() }
        return held
    }

    func hold() {
        condition.lock()
        held = true
        while !released { condition.wait() }
        condition.unlock()
    }

    func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }
}
