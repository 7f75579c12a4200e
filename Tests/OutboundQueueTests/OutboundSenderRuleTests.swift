import MailDelivery
import OutboundQueue
import Testing

/// `POSTERN_OUTBOUND_SENDERS`'s decisions over facts held in memory (``SenderAccounts``); the same rule over the real
/// stores, on both backends, is `SenderAccountStoresTests` (PosternAppTests).
@Suite("Outbound sender rule")
struct OutboundSenderRuleTests {
    /// Facts as the stores would answer them: live agent inboxes and their owners, verified domains and their holders,
    /// Mail.td mailboxes and their Pro users, approved owners.
    struct Accounts: SenderAccounts {
        var inboxes: [String: String] = [:]
        var domains: [String: SenderDomainHolder] = [:]
        var mailboxes: [String: String] = [:]
        var approved: Set<String> = []

        func ownerOfLiveAgentInbox(named username: String) async throws -> String? { inboxes[username] }
        func verifiedHolder(of domain: String) async throws -> SenderDomainHolder? { domains[domain] }
        func mailboxHolder(of address: String) async throws -> String? { mailboxes[address] }
        func isApproved(owner: String) async throws -> Bool { approved.contains(owner) }
    }

    /// Owners `o1` (approved) and `o3` (signed up themselves); `owned.example` verified by `o1`, `pro.example` by Pro
    /// user `p1`, `stranger.example` by `o3`.
    static let accounts = Accounts(
        inboxes: [
            "made-agent": "o1", "support@owned.example": "o1", "other@owned.example": "o2", "stranger-box": "o3",
            "sales@stranger.example": "o3",
        ],
        domains: ["owned.example": .owner("o1"), "pro.example": .proUser("p1"), "stranger.example": .owner("o3")],
        mailboxes: ["box@pro.example": "p1", "anyone@pro.example": "p1", "left@pro.example": "p2"],
        approved: ["o1", "o2"])

    static func rule(_ mode: OutboundSenderRule.Mode, _ accounts: Accounts = accounts) -> OutboundSenderRule {
        OutboundSenderRule(mode: mode, agentDomain: "Agents.Localhost", accounts: accounts)
    }

    @Test("owned: an agent inbox on the agent domain may while an approved owner holds it; any case; no one else")
    func agentDomain() async throws {
        let rule = Self.rule(.owned)
        #expect(try await rule.standing(of: "made-agent@agents.localhost") == .allowed(holder: .owner("o1")))
        #expect(try await rule.standing(of: "made-agent@AGENTS.localhost") == .allowed(holder: .owner("o1")))
        #expect(try await rule.standing(of: "anon-agent@agents.localhost") == .notAccountable)
        #expect(try await rule.standing(of: "not-an-address") == .notAccountable)
        #expect(try await rule.standing(of: "@agents.localhost") == .notAccountable)
    }

    @Test("owned: on a verified custom domain only its own holder's inboxes and mailboxes may")
    func customDomains() async throws {
        let rule = Self.rule(.owned)
        #expect(try await rule.standing(of: "support@owned.example") == .allowed(holder: .owner("o1")))
        #expect(try await rule.standing(of: "other@owned.example") == .notAccountable, "another owner's inbox")
        #expect(try await rule.standing(of: "nobody@owned.example") == .notAccountable)
        #expect(try await rule.standing(of: "box@pro.example") == .allowed(holder: nil), "a Pro user's account")
        #expect(try await rule.standing(of: "anyone@pro.example") == .allowed(holder: nil), "the catch-all")
        #expect(try await rule.standing(of: "left@pro.example") == .notAccountable, "an earlier holder's account")
        #expect(try await rule.standing(of: "someone@elsewhere.example") == .notAccountable)
        // The domain goes: nothing on it may.
        var lost = Self.accounts
        lost.domains = [:]
        #expect(try await Self.rule(.owned, lost).standing(of: "support@owned.example") == .notAccountable)
        #expect(try await Self.rule(.owned, lost).standing(of: "box@pro.example") == .notAccountable)
    }

    @Test("owned: an owner not approved answers for nothing, on any domain, until approved")
    func awaitingApproval() async throws {
        #expect(try await Self.rule(.owned).standing(of: "stranger-box@agents.localhost") == .awaitingApproval)
        #expect(try await Self.rule(.owned).standing(of: "sales@stranger.example") == .awaitingApproval)
        var approved = Self.accounts
        approved.approved.insert("o3")
        #expect(
            try await Self.rule(.owned, approved).standing(of: "sales@stranger.example") == .allowed(holder: .owner("o3")))
        #expect(try await Self.rule(.owned, approved).mayReachOutside("stranger-box@agents.localhost"))
    }

    @Test("all: every sender may; an owner's inboxes are still counted as the owner's")
    func everyone() async throws {
        let rule = Self.rule(.all)
        #expect(try await rule.standing(of: "stranger-box@agents.localhost") == .allowed(holder: .owner("o3")))
        for sender in ["anon-agent@agents.localhost", "left@pro.example", "x@elsewhere.example", "not-an-address"] {
            #expect(try await rule.standing(of: sender) == .allowed(holder: nil), "\(sender)")
        }
        #expect(OutboundSenderRule.Mode(rawValue: "everyone") == nil)
    }
}
