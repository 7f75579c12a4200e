import Testing

@testable import AgentAuth

@Suite("Dynamic difficulty policy")
struct DifficultyPolicyTests {
    @Test("Up to ten challenges in the window keep the base difficulty")
    func freeAllowance() {
        let policy = DifficultyPolicy(base: 6, maximum: 18, dynamic: true)
        for count in 0...10 {
            #expect(policy.difficulty(recentChallenges: count) == 6)
        }
    }

    @Test("One bit per doubling beyond ten", arguments: [
        (11, 7), (20, 7), (21, 8), (40, 8), (41, 9), (80, 9), (81, 10), (160, 10), (161, 11),
    ])
    func doublings(count: Int, expected: Int) {
        let policy = DifficultyPolicy(base: 6, maximum: 18, dynamic: true)
        #expect(policy.difficulty(recentChallenges: count) == expected)
    }

    @Test("The raise stops at the maximum")
    func capped() {
        let policy = DifficultyPolicy(base: 6, maximum: 18, dynamic: true)
        #expect(policy.difficulty(recentChallenges: 10 << 11) == 17)
        #expect(policy.difficulty(recentChallenges: 10 << 12) == 18)
        #expect(policy.difficulty(recentChallenges: 10 << 40) == 18)
        #expect(policy.difficulty(recentChallenges: Int.max) == 18)
    }

    @Test("Switched off, every challenge has the base difficulty")
    func off() {
        let policy = DifficultyPolicy(base: 3, maximum: 18, dynamic: false)
        #expect(policy.difficulty(recentChallenges: 1_000_000) == 3)
    }

    @Test("A maximum below the base is raised to the base; zero is a valid base")
    func clamping() {
        #expect(DifficultyPolicy(base: 8, maximum: 2, dynamic: true).maximum == 8)
        #expect(DifficultyPolicy(base: 8, maximum: 2, dynamic: true).difficulty(recentChallenges: 500) == 8)
        #expect(DifficultyPolicy(base: 0, maximum: 1, dynamic: true).difficulty(recentChallenges: 5) == 0)
        #expect(DifficultyPolicy(base: 0, maximum: 1, dynamic: true).difficulty(recentChallenges: 11) == 1)
        #expect(DifficultyPolicy(base: -3, maximum: 900, dynamic: true).base == 0)
        #expect(DifficultyPolicy(base: -3, maximum: 900, dynamic: true).maximum == 512)
    }
}
