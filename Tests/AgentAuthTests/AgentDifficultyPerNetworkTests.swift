import PosternTestSupport
import Testing

@testable import AgentAuth

@Suite("Dynamic difficulty counts IPv6 clients per /64")
struct AgentDifficultyPerNetworkTests {
    @Test("Fresh addresses from one /64 do not escape the raised difficulty", arguments: StorageBackend.allCases)
    func sameNetwork(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 1, maxDifficulty: 4, dynamic: true)
        var last = 0
        for host in 1...11 {
            last = try await harness.challenge(remoteAddress: "2001:db8:7:7::\(String(host, radix: 16))").difficulty
        }
        #expect(last == 2)
        #expect(try await harness.challenge(remoteAddress: "2001:db8:7:8::1").difficulty == 1)
    }
}
