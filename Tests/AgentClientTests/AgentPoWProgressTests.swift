import Testing

@testable import AgentClient

@Suite("Proof-of-work progress")
struct AgentPoWProgressTests {
    @Test("the line gives difficulty, tries against the expected number, elapsed, rate and expected time")
    func line() {
        let progress = AgentPoWProgress(difficulty: 12, attempts: 1000, elapsed: 50)
        #expect(progress.expectedAttempts == 4096)
        #expect(progress.rate == 20)
        #expect(progress.expectedSeconds == 204.8)
        #expect(
            progress.line
                == "solving the proof of work: difficulty 12, 1000 of about 4096 expected tries, 0:50 elapsed, "
                + "20.0 tries/s, about 3:25 expected in all")
        #expect(progress.expectation == "difficulty 12, about 4096 tries expected")
        let start = AgentPoWProgress(difficulty: 24, attempts: 0, elapsed: 0.4)
        #expect(start.rate == nil)
        #expect(start.line == "solving the proof of work: difficulty 24, 0 of about 16.8M expected tries, 0:00 elapsed")
        #expect(AgentPoWProgress.duration(7_500) == "2:05:00")
    }

    @Test("the solver reports progress from the waiting thread while it searches, counting every try")
    func solverReports() throws {
        let reports = Reports()
        #expect(throws: AgentPoWSolverError.exhausted(attempts: 6)) {
            try AgentPoWSolver(threads: 2).solve(
                challenge: "progress", salt: "salt", difficulty: 60, maxAttempts: 6, progressInterval: .milliseconds(5)
            ) { reports.append($0) }
        }
        let seen = reports.all
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.difficulty == 60 && $0.attempts <= 6 })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.attempts <= $1.attempts && $0.elapsed <= $1.elapsed })
    }
}

/// Progress reports gathered from the solver's calling thread.
private final class Reports: @unchecked Sendable {
    private(set) var all: [AgentPoWProgress] = []
    func append(_ progress: AgentPoWProgress) { all.append(progress) }
}
