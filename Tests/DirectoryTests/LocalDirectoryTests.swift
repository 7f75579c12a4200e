import Directory
import Testing

/// A directory of fixed accounts on fixed domains, counting its lookups.
final class FixedDirectory: AccountDirectory, @unchecked Sendable {
    // @unchecked: `asked` is only read after the awaited calls that append to it have returned.
    let domains: Set<String>
    let accounts: [String: Int64]
    var asked: [String] = []

    init(domains: Set<String>, accounts: [String: Int64]) {
        self.domains = domains
        self.accounts = accounts
    }

    func serves(domain: String) -> Bool { domains.contains(domain.lowercased()) }

    func resolve(_ address: String) async throws -> AddressResolution {
        asked.append(address)
        guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
        return accounts[parts.text].map { .local(Recipient(address: parts.text, quota: $0)) } ?? .unknown
    }
}

struct Unreadable: Error {}

/// A directory whose accounts cannot be read.
struct FailingDirectory: AccountDirectory {
    func serves(domain: String) -> Bool { domain == "down.test" }
    func resolve(_ address: String) async throws -> AddressResolution { throw Unreadable() }
}

@Suite("Local directory composition")
struct LocalDirectoryTests {
    @Test("the first member that has the address wins; unknown when a member serves the domain; foreign otherwise")
    func composition() async throws {
        let mail = FixedDirectory(domains: ["shared.test", "mail.test"], accounts: ["box@mail.test": 10])
        let agents = FixedDirectory(domains: ["shared.test"], accounts: ["agent@shared.test": 20])
        let directory = LocalDirectory([mail, agents])
        #expect(try await directory.resolve("BOX@Mail.Test") == .local(Recipient(address: "box@mail.test", quota: 10)))
        #expect(try await directory.resolve("agent@shared.test") == .local(Recipient(address: "agent@shared.test", quota: 20)))
        #expect(try await directory.resolve("nobody@shared.test") == .unknown)
        #expect(try await directory.resolve("nobody@mail.test") == .unknown)
        #expect(try await directory.resolve("box@elsewhere.test") == .foreign)
        #expect(directory.serves(domain: "MAIL.test"))
        #expect(!directory.serves(domain: "elsewhere.test"))
        #expect(mail.asked.count == 5)
        #expect(agents.asked == ["agent@shared.test", "nobody@shared.test", "nobody@mail.test", "box@elsewhere.test"])
    }

    @Test("the member that serves the domain is asked first: an address found there costs the others no lookup")
    func servingMemberFirst() async throws {
        let mail = FixedDirectory(domains: ["mail.test"], accounts: ["box@mail.test": 10])
        let agents = FixedDirectory(domains: ["agents.test"], accounts: ["agent@agents.test": 20])
        let directory = LocalDirectory([mail, agents])
        #expect(
            try await directory.resolve("Agent@Agents.test") == .local(Recipient(address: "agent@agents.test", quota: 20)))
        #expect(mail.asked.isEmpty)
        // Not found where it is served: every other member is still asked, as before.
        #expect(try await directory.resolve("nobody@agents.test") == .unknown)
        #expect(mail.asked == ["nobody@agents.test"])
        #expect(try await directory.resolve("box@mail.test") == .local(Recipient(address: "box@mail.test", quota: 10)))
        #expect(agents.asked == ["Agent@Agents.test", "nobody@agents.test"])
        // A domain nobody serves (a custom domain): every member in order.
        #expect(try await directory.resolve("x@custom.test") == .foreign)
        #expect(mail.asked.last == "x@custom.test" && agents.asked.last == "x@custom.test")
    }

    @Test("a member's storage error is thrown, not taken for an unknown address")
    func failure() async {
        let directory = LocalDirectory([FailingDirectory()])
        await #expect(throws: Unreadable.self) { try await directory.resolve("a@down.test") }
    }

    @Test("addresses split at their one @ into a non-empty local part and a domain, ASCII case folded, nothing else")
    func addressParts() {
        #expect(AddressParts("Ada@Example.Test")?.text == "ada@example.test")
        #expect(AddressParts("ada@") == nil)
        // Issue 66: KELVIN SIGN stays itself (Swift's lowercased() made it `k`), and a Unicode domain is its A-label.
        #expect(AddressParts("\u{212A}ate@Example.Test")?.text == "\u{212A}ate@example.test")
        #expect(AddressParts("ada@B\u{00FC}cher.Test")?.domain == "xn--bcher-kva.test")
        #expect(AddressParts("@example.test") == nil)
        #expect(AddressParts("a@b@c") == nil)
        #expect(AddressParts("plain") == nil)
    }

    @Test("an agent inbox is <username>@<domain>, and names its username only on that domain")
    func agentInbox() throws {
        #expect(AgentInbox.address(username: "bot-1", domain: "agents.test") == "bot-1@agents.test")
        let parts = try #require(AddressParts("Bot-1@Agents.Test"))
        #expect(AgentInbox.username(of: parts, domain: "agents.test") == "bot-1")
        #expect(AgentInbox.username(of: parts, domain: "AGENTS.test") == "bot-1")
        #expect(AgentInbox.username(of: parts, domain: "mail.test") == nil)
    }

    @Test("credentials: the first value of a header, whatever its case")
    func credentials() {
        let credentials = Credentials(
            bearerToken: "t", headers: [("X-Atomic-Account-Id", "a1"), ("x-atomic-account-id", "a2")])
        #expect(credentials.header("x-atomic-account-id") == "a1")
        #expect(credentials.header("Authorization") == nil)
    }
}
