import AgentAuth
import MailDelivery
import Logging
import OutboundQueue
import Owners
import PosternTestSupport
import Storage
import Testing

@testable import PosternApp

/// `POSTERN_OUTBOUND_SENDERS` over the stores, on both backends: the rule (OutboundQueue's, whose decisions
/// `OutboundSenderRuleTests` there check over facts in memory) fed by `SenderAccountStores`, the composition root's
/// forwarding to the agent accounts, the custom domains, Mail.td's directory and the owners' approvals. `owned` lets
/// through only inboxes an owner holds and addresses on a verified custom domain held by their own holder; `all` lets
/// everyone through.
@Suite("Outbound sender rule over the stores")
struct SenderAccountStoresTests {
    static let agentDomain = "agents.localhost"

    /// Owners `o1` and `o2`, made by the operator (approved); Pro users `p1` and `p2`; `owned.example` verified by `o1`, `pro.example` verified by
    /// `p1`, `pending.example` claimed by `o2` and pending; Mail.td accounts: `box@pro.example` (p1's),
    /// `left@pro.example` (p2's, left from an earlier holder), `free@mail.localhost` (nobody's).
    static func database(_ backend: StorageBackend) async throws -> TestDatabase {
        let test = try backend.makeDatabase(logger: Logger(label: "outbound-sender-rule-tests"))
        try await test.database.write { connection in
            for owner in ["o1", "o2"] {
                try connection.run(
                    "INSERT INTO owners (id, email, password_hash, created_at, approved_at) VALUES (?, ?, '', 0, 0)",
                    [.text(owner), .text(owner + "@example.com")])
            }
            for user in ["p1", "p2"] {
                try connection.run(
                    """
                    INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, max_domains, created_at)
                    VALUES (?, ?, '', 5, 5, 0)
                    """, [.text(user), .text(user + "@example.com")])
            }
            for (id, owner, user, domain, verified) in [
                ("d1", "o1", nil, "owned.example", true), ("d2", nil, "p1", "pro.example", true),
                ("d3", "o2", nil, "pending.example", false),
            ] as [(String, String?, String?, String, Bool)] {
                try connection.run(
                    """
                    INSERT INTO custom_domain_claims (id, owner_id, pro_user_id, domain, verify_token, verified_at,
                        created_at) VALUES (?, ?, ?, ?, ?, ?, 0)
                    """,
                    [
                        .text(id), owner.map(SQLValue.text) ?? .null, user.map(SQLValue.text) ?? .null, .text(domain),
                        .text("postern-verify-" + id), verified ? .integer(1) : .null,
                    ])
            }
            for (id, address, user) in [
                ("a1", "box@pro.example", "p1"), ("a2", "left@pro.example", "p2"), ("a3", "free@mail.localhost", nil),
            ] as [(String, String, String?)] {
                try connection.run(
                    """
                    INSERT INTO mailbox_accounts (id, address, password_hash, quota, created_at, owner_id)
                    VALUES (?, ?, '', 1000, 0, ?)
                    """, [.text(id), .text(address), user.map(SQLValue.text) ?? .null])
            }
        }
        return test
    }

    static func rule(_ mode: OutboundSenderRule.Mode, _ database: any SQLDatabase) -> OutboundSenderRule {
        OutboundSenderRule(
            mode: mode, agentDomain: agentDomain,
            accounts: SenderAccountStores(
                database: database, mailboxDomains: ["mail.localhost"], claims: Surfaces.customDomains(
                    database: database, signingKeys: nil)))
    }

    @Test("owned: an anonymous agent may not; an inbox an owner made or linked may, until it is unlinked or revoked",
          arguments: StorageBackend.allCases)
    func agentInboxes(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        let accounts = AgentAccountStore(database: test.database)
        let inboxes = AgentOwnedInboxes(accounts: accounts, domain: Self.agentDomain, clock: { 1 })
        let rule = Self.rule(.owned, test.database)
        let (made, _) = try await inboxes.createInbox(username: "made-agent", ownerID: "o1")
        let (loose, looseKey) = try await inboxes.createInbox(username: "loose-agent", ownerID: "o1")
        _ = try await inboxes.unlink(accountID: loose.accountID, ownerID: "o1")
        #expect(try await accounts.create(
            id: "anon", username: "anon-agent", apiKeyDigest: Array(repeating: 7, count: 32), now: 1))

        #expect(try await rule.mayReachOutside("made-agent@agents.localhost"))
        #expect(try await rule.mayReachOutside("Made-Agent@AGENTS.localhost"), "any case")
        #expect(try await !rule.mayReachOutside("anon-agent@agents.localhost"), "an anonymous agent")
        #expect(try await !rule.mayReachOutside("loose-agent@agents.localhost"), "unlinked: nobody's")
        #expect(try await !rule.mayReachOutside("nobody-here@agents.localhost"))
        _ = try await inboxes.link(apiKey: looseKey, ownerID: "o2")
        #expect(try await rule.mayReachOutside("loose-agent@agents.localhost"), "linked with its API key")
        #expect(try await accounts.revoke(username: "made-agent", now: 2))
        #expect(try await !rule.mayReachOutside("made-agent@agents.localhost"), "revoked")
        #expect(try await !rule.mayReachOutside("not-an-address"))
        #expect(try await !rule.mayReachOutside("@agents.localhost"))
        #expect(made.address == "made-agent@agents.localhost")
    }

    @Test("owned: on a verified custom domain its own holder's inboxes and accounts may; others may not",
          arguments: StorageBackend.allCases)
    func customDomains(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: test.database), domain: Self.agentDomain, clock: { 1 })
        let rule = Self.rule(.owned, test.database)
        _ = try await inboxes.createInbox(username: "support", domain: "owned.example", ownerID: "o1")
        _ = try await inboxes.createInbox(username: "other", domain: "owned.example", ownerID: "o2")
        _ = try await inboxes.createInbox(username: "helpdesk", domain: "pending.example", ownerID: "o2")

        #expect(try await rule.mayReachOutside("support@owned.example"), "the owner's inbox on the owner's domain")
        #expect(try await !rule.mayReachOutside("other@owned.example"), "another owner's inbox on it")
        #expect(try await !rule.mayReachOutside("nobody@owned.example"), "no inbox there")
        #expect(try await !rule.mayReachOutside("helpdesk@pending.example"), "a domain not verified")
        #expect(try await rule.mayReachOutside("box@pro.example"), "a Pro account on its user's verified domain")
        #expect(try await rule.mayReachOutside("anyone@pro.example"), "the Pro user's catch-all")
        #expect(try await !rule.mayReachOutside("left@pro.example"), "an account left from an earlier holder")
        #expect(try await !rule.mayReachOutside("free@mail.localhost"), "a free Mail.td account")
        #expect(try await !rule.mayReachOutside("someone@elsewhere.example"), "a domain this server does not hold")
        // The domain goes: its inboxes and accounts may no longer reach outside.
        _ = try await test.database.write { connection in
            try connection.run("DELETE FROM custom_domain_claims WHERE id IN ('d1', 'd2')", [])
        }
        #expect(try await !rule.mayReachOutside("support@owned.example"))
        #expect(try await !rule.mayReachOutside("box@pro.example"))
    }

    @Test("owned: an owner who signed up themselves answers for nothing: their inboxes may not, on any domain",
          arguments: StorageBackend.allCases)
    func selfRegisteredOwner(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        // A row as open sign-up writes it: nobody approved it.
        _ = try await test.database.write { connection in
            try connection.run(
                "INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o3', 'o3@example.com', '', 0)")
            try connection.run(
                """
                INSERT INTO custom_domain_claims (id, owner_id, domain, verify_token, verified_at, created_at)
                VALUES ('d4', 'o3', 'stranger.example', 'postern-verify-d4', 1, 0)
                """)
        }
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: test.database), domain: Self.agentDomain, clock: { 1 })
        _ = try await inboxes.createInbox(username: "stranger-box", ownerID: "o3")
        _ = try await inboxes.createInbox(username: "sales", domain: "stranger.example", ownerID: "o3")
        let rule = Self.rule(.owned, test.database)
        #expect(try await !rule.mayReachOutside("stranger-box@agents.localhost"), "an agent inbox")
        #expect(try await !rule.mayReachOutside("sales@stranger.example"), "an inbox on their verified domain")
        #expect(try await rule.standing(of: "stranger-box@agents.localhost") == .awaitingApproval)
        #expect(try await rule.standing(of: "anyone@elsewhere.example") == .notAccountable)

        // The operator approves them: both may, named as the owner's for the per-owner limit; then withdraws it.
        let approvals = OwnerApprovals(database: test.database)
        #expect(try await approvals.setApproved(email: "O3@example.com", true, now: 5))
        #expect(try await rule.standing(of: "stranger-box@agents.localhost") == .allowed(holder: .owner("o3")))
        #expect(try await rule.standing(of: "sales@stranger.example") == .allowed(holder: .owner("o3")))
        #expect(try await approvals.setApproved(email: "o3@example.com", false, now: 6))
        #expect(try await rule.standing(of: "sales@stranger.example") == .awaitingApproval)
        #expect(try await !approvals.setApproved(email: "nobody@example.com", true, now: 7))
        // In `all` every sender may, and an owner's inboxes are still counted as the owner's.
        let all = Self.rule(.all, test.database)
        #expect(try await all.standing(of: "stranger-box@agents.localhost") == .allowed(holder: .owner("o3")))
        #expect(try await all.standing(of: "anyone@elsewhere.example") == .allowed(holder: nil))
        #expect(try await Self.rule(.owned, test.database).standing(of: "box@pro.example") == .allowed(holder: nil))
    }

    @Test("all: every sender may, the anonymous agent and the free account too", arguments: StorageBackend.allCases)
    func everyone(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        #expect(try await AgentAccountStore(database: test.database).create(
            id: "anon", username: "anon-agent", apiKeyDigest: Array(repeating: 7, count: 32), now: 1))
        let rule = Self.rule(.all, test.database)
        for sender in ["anon-agent@agents.localhost", "free@mail.localhost", "left@pro.example", "x@elsewhere.example"] {
            #expect(try await rule.mayReachOutside(sender), "\(sender)")
        }
        #expect(OutboundSenderRule.Mode(rawValue: "owned") == .owned && OutboundSenderRule.Mode(rawValue: "all") == .all)
        #expect(OutboundSenderRule.Mode(rawValue: "everyone") == nil)
    }
}
