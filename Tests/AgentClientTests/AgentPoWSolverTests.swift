import AgentAuth
import AgentPoW
import AuthCrypto
import Testing

@testable import AgentClient

@Suite("Agent proof-of-work solver")
struct AgentPoWSolverTests {
    @Test("The multi-threaded solver finds the smallest solving nonce (the CONTRACT 1.2 vectors' challenges)")
    func solverFindsSmallestNonce() throws {
        let solver = AgentPoWSolver(threads: 4)
        let salt = AgentAuthConfiguration.defaultPoWSalt
        for (challenge, difficulty) in [("fixture-alpha", 4), ("fixture-beta", 6)] {
            let solution = try solver.solve(challenge: challenge, salt: salt, difficulty: difficulty)
            let digest = try AgentProofOfWork.digest(challenge: challenge, nonce: String(solution.nonce), salt: salt)
            #expect(solution.powHex == Hex.encode(digest))
            #expect(AgentProofOfWork.meets(difficulty: difficulty, digest))
            for smaller in 0..<solution.nonce {
                let earlier = try AgentProofOfWork.digest(challenge: challenge, nonce: String(smaller), salt: salt)
                #expect(!AgentProofOfWork.meets(difficulty: difficulty, earlier), "\(challenge) nonce \(smaller)")
            }
        }
    }

    @Test("The solver gives up at the attempt limit")
    func solverLimit() {
        #expect(throws: AgentPoWSolverError.exhausted(attempts: 3)) {
            try AgentPoWSolver(threads: 2).solve(
                challenge: "fixture-gamma", salt: AgentAuthConfiguration.defaultPoWSalt, difficulty: 30, maxAttempts: 3)
        }
    }
}
