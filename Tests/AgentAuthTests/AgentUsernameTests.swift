import Testing

@testable import AgentAuth

@Suite("Agent usernames")
struct AgentUsernameTests {
    @Test("Valid names", arguments: ["myagent", "abcde", "a.b-c_d", "0agent9", "a2345678901234567890z"])
    func valid(name: String) {
        #expect(AgentUsername.check(name) == nil)
    }

    @Test("Invalid names", arguments: [
        "", "abcd", "a23456789012345678901z", "MyAgent", ".agent", "agent.", "agent-", "_agent", "my agent",
        "agént", "agent@x", "ag/ent", "agent\n",
    ])
    func invalid(name: String) {
        #expect(AgentUsername.check(name) == .invalid)
    }

    @Test("Reserved names that match the pattern are refused as reserved")
    func reserved() {
        for name in ["admin", "postmaster", "abuse", "hostmaster", "webmaster", "noreply", "support"] {
            #expect(AgentUsername.check(name) == .reserved)
        }
        // `root` is only four characters: the pattern already refuses it.
        #expect(AgentUsername.check("root") == .invalid)
        #expect(AgentUsername.check("admin1") == nil)
    }
}
