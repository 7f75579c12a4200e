import Testing

@testable import AgentAuth

@Suite("Client address keys for dynamic difficulty")
struct ClientAddressKeyTests {
    @Test("IPv4 counts alone, IPv6 by /64, IPv4-mapped as IPv4, garbage as itself")
    func keys() {
        #expect(ClientAddressKey.key(for: "192.0.2.1") == "192.0.2.1")
        #expect(ClientAddressKey.key(for: "2001:db8:1:2::1") == ClientAddressKey.key(for: "2001:db8:1:2:ffff::9"))
        #expect(ClientAddressKey.key(for: "2001:db8:1:2::1") != ClientAddressKey.key(for: "2001:db8:1:3::1"))
        #expect(ClientAddressKey.key(for: "2001:db8:1:2::1") == "v6:20010db800010002::/64")
        #expect(ClientAddressKey.key(for: "::ffff:192.0.2.7") == "192.0.2.7")
        #expect(ClientAddressKey.key(for: "::1") == "v6:0000000000000000::/64")
        #expect(ClientAddressKey.key(for: "not:an:address") == "not:an:address")
        #expect(ClientAddressKey.key(for: "") == "")
    }

    @Test("Fresh addresses from one /64 do not escape the raised difficulty")
    func sameNetwork() async throws {
        let harness = try AgentHarness(difficulty: 1, maxDifficulty: 4, dynamic: true)
        var last = 0
        for host in 1...11 {
            last = try await harness.challenge(remoteAddress: "2001:db8:7:7::\(String(host, radix: 16))").difficulty
        }
        #expect(last == 2)
        #expect(try await harness.challenge(remoteAddress: "2001:db8:7:8::1").difficulty == 1)
    }
}
