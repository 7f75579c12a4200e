import AgentAuth
import CustomDomains
import DNS
import Directory
import HTTP1
import Owners
import PosternTestSupport
import Storage
import Testing

/// `/owner/domains` through its routes: add, verify against a loopback DNS zone, create an inbox on the domain.
@Suite("Owners: the custom domains page")
struct OwnerDomainPagesTests {
    static func harness(_ backend: StorageBackend, _ server: LoopbackDNSServer) throws -> OwnersHarness {
        try OwnersHarness(backend, dns: server) {
            $0.mxHost = "mx.postern.test"
            $0.servedDomains = ["agents.localhost"]
        }
    }

    static func pages(_ harness: OwnersHarness) -> OwnerDomainPages {
        OwnerDomainPages(
            service: harness.service,
            inboxes: AgentOwnedInboxes(
                accounts: AgentAccountStore(database: harness.test.database), domain: "agents.localhost",
                clock: { 1_800_000_000 }))
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test(
        "add, publish, verify, create an inbox whose key is shown once; a stranger's id is a 404",
        arguments: StorageBackend.allCases)
    func flow(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        Self.pages(harness).register(into: &harness.router)
        #expect(await harness.send(.GET, "/owner/domains").headers["Location"] == "/owner/sign-in?next=%2Fowner%2Fdomains")
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.signIn("ada@example.com", "correct horse")

        let empty = await harness.send(.GET, "/owner/domains")
        let csrf = try #require(OwnersHarness.csrf(in: empty))
        let refused = await harness.send(.POST, "/owner/domains", form: ["domain": "example.com", "csrf_token": "x"])
        #expect(refused.status.code == 403)
        let bad = await harness.send(.POST, "/owner/domains", form: ["domain": "agents.localhost", "csrf_token": csrf])
        #expect(bad.status.code == 409 && Self.text(bad).contains("already in use"))
        let added = await harness.send(.POST, "/owner/domains", form: ["domain": "Example.com", "csrf_token": csrf])
        #expect(added.status.code == 201)
        let ownerID = try #require(try await harness.service.owners.list().first?.id)
        let domain = try #require(try await harness.service.domains.domains(ownerID: ownerID).first)
        #expect(Self.text(added).contains(domain.verifyToken) && Self.text(added).contains("10 mx.postern.test"))
        #expect(!Self.text(added).contains("name=\"local_part\""))

        let pending = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        #expect(Self.text(pending).contains("TXT record not found") && Self.text(pending).contains("pending"))
        let early = await harness.send(
            .POST, "/owner/domains/\(domain.id)/inboxes", form: ["local_part": "support", "csrf_token": csrf])
        #expect(early.status.code == 404)

        zone.set("example.com", 16, .txt([domain.verifyToken]))
        let verified = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        #expect(Self.text(verified).contains("example.com is verified."))
        let created = await harness.send(
            .POST, "/owner/domains/\(domain.id)/inboxes", form: ["local_part": "support", "csrf_token": csrf])
        #expect(created.status.code == 201 && Self.text(created).contains("support@example.com"))
        #expect(created.headers["Cache-Control"] == "no-store" && Self.text(created).contains("postern_ak_"))
        // The key has the element id /owner gives it, so a reader (or a script) finds it the same way on both pages.
        #expect(Self.text(created).contains("<pre id=\"api-key\" class=\"key\">postern_ak_"))
        #expect(Self.text(created).contains("<code id=\"key-address\">support@example.com</code>"))
        let again = await harness.send(
            .POST, "/owner/domains/\(domain.id)/inboxes", form: ["local_part": "support", "csrf_token": csrf])
        #expect(again.status.code == 409)

        let stranger = await harness.send(.POST, "/owner/domains/00000000-0000-0000-0000-000000000000/delete", form: ["csrf_token": csrf])
        #expect(stranger.status.code == 404)
        // The inbox on it is served only while the domain is the owner's verified claim: no delete under it.
        let refusedDelete = await harness.send(.POST, "/owner/domains/\(domain.id)/delete", form: ["csrf_token": csrf])
        #expect(refusedDelete.status.code == 409)
        #expect(Self.text(refusedDelete).contains("cannot be deleted while inboxes exist on it"))
        #expect(Self.text(refusedDelete).contains("support@example.com"))
        #expect(try await harness.service.domains.verified("example.com", ownerID: ownerID) != nil)

        _ = await harness.send(.POST, "/owner/domains", form: ["domain": "empty.example", "csrf_token": csrf])
        let unused = try #require(try await harness.service.domains.domains(ownerID: ownerID).first { $0.domain != "example.com" })
        #expect(unused.domain == "empty.example")
        let deleted = await harness.send(.POST, "/owner/domains/\(unused.id)/delete", form: ["csrf_token": csrf])
        #expect(deleted.status.code == 200 && !Self.text(deleted).contains("data-domain=\"empty.example\""))
    }
}

extension OwnerDomainPagesTests {
    @Test(
        "an inbox is local only while its owner holds its domain verified; another owner's verify does not revive it",
        arguments: StorageBackend.allCases)
    func inboxFollowsTheClaim(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "battery staple")
        let domains = harness.service.domains
        let claim = try await domains.add("held.example", ownerID: ada.id)
        zone.set("held.example", 16, .txt([claim.verifyToken]))
        _ = try await domains.verify(id: claim.id, ownerID: ada.id)
        let accounts = AgentAccountStore(database: harness.test.database)
        let inboxes = AgentOwnedInboxes(accounts: accounts, domain: "agents.localhost", clock: { 1_800_000_000 })
        _ = try await inboxes.createInbox(username: "support", domain: "held.example", ownerID: ada.id)
        let directory = AgentInboxDirectory(
            accounts: accounts, claims: CustomDomains(database: accounts.database), domain: "agents.localhost",
            quota: 100)
        #expect(try await directory.resolve("Support@held.example") == .local(.init(address: "support@held.example", quota: 100)))

        // Ada's claim goes (as an owner's deletion takes it, or a delete before inboxes held it); Bob proves the domain.
        _ = try await harness.test.database.write { try $0.run("DELETE FROM custom_domain_claims WHERE id = ?", [.text(claim.id)]) }
        #expect(try await directory.resolve("support@held.example") == .foreign)
        let bobs = try await domains.add("held.example", ownerID: bob.id)
        zone.set("held.example", 16, .txt([bobs.verifyToken]))
        #expect(try await domains.verify(id: bobs.id, ownerID: bob.id)?.domain.verifiedAt != nil)
        // Bob's domain now, where no inbox of Bob's has the address: unknown (550 5.1.1), still not Ada's.
        #expect(try await directory.resolve("support@held.example") == .unknown)
    }
}

extension OwnerDomainPagesTests {
    /// A Pro side that has an account left at one address.
    struct LeftAccount: CustomDomainMailboxes {
        var holderKind: DomainHolder.Kind { .proUser }
        func hasMailbox(at address: String) async throws -> Bool { address == "left@held.example" }
        func hasMailboxes(holderID: String, on domain: String, connection: any SQLConnection) throws -> Bool { false }
    }

    @Test(
        "no inbox at an address where a Pro user's account was left: its mail is kept under the address",
        arguments: StorageBackend.allCases)
    func addressLeftOnTheOtherSurface(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend, dns: server, domainMailboxes: [LeftAccount()])
        Self.pages(harness).register(into: &harness.router)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let claim = try await harness.service.domains.add("held.example", ownerID: ada.id)
        zone.set("held.example", 16, .txt([claim.verifyToken]))
        _ = try await harness.service.domains.verify(id: claim.id, ownerID: ada.id)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/domains")))
        let left = await harness.send(
            .POST, "/owner/domains/\(claim.id)/inboxes", form: ["local_part": "Left", "csrf_token": csrf])
        #expect(left.status.code == 409 && Self.text(left).contains("That address is taken."))
        let fresh = await harness.send(
            .POST, "/owner/domains/\(claim.id)/inboxes", form: ["local_part": "fresh", "csrf_token": csrf])
        #expect(fresh.status.code == 201)
    }
}

extension OwnerDomainPagesTests {
    @Test(
        "with no mail host set the page says the operator must set POSTERN_MX_HOST, never an MX naming localhost",
        arguments: StorageBackend.allCases)
    func mxHostUnset(_ backend: StorageBackend) async throws {
        let server = LoopbackDNSServer(zone: LoopbackDNSServer.Zone().answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend, dns: server) {
            $0.mxHost = "localhost"  // what POSTERN_MX_HOST unset and no public URL host leave
        }
        Self.pages(harness).register(into: &harness.router)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/domains")))
        let added = Self.text(await harness.send(.POST, "/owner/domains", form: ["domain": "example.com", "csrf_token": csrf]))
        #expect(added.contains("id=\"mx-host-unset\"") && added.contains("the operator must set POSTERN_MX_HOST"))
        #expect(!added.contains("10 localhost") && !added.contains("<code>localhost</code>"))
    }
}

extension OwnerDomainPagesTests {
    @Test(
        "the agent side answers for owners' inboxes: no delete while one is on the domain, and Mail.td sees the address",
        arguments: StorageBackend.allCases)
    func agentMailboxes(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "battery staple")
        let domains = harness.service.domains
        let claim = try await domains.add("kept.example", ownerID: ada.id)
        zone.set("kept.example", 16, .txt([claim.verifyToken]))
        _ = try await domains.verify(id: claim.id, ownerID: ada.id)
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: harness.test.database), domain: "agents.localhost",
            clock: { 1_800_000_000 })
        let (inbox, _) = try await inboxes.createInbox(username: "support", domain: "kept.example", ownerID: ada.id)
        // Inboxes on a domain that merely ends in the same letters, Ada's or Bob's, are not on it.
        _ = try await inboxes.createInbox(username: "other", domain: "notkept.example", ownerID: ada.id)
        _ = try await inboxes.createInbox(username: "bobs1", domain: "kept.example", ownerID: bob.id)

        // Asked inside the delete's own transaction, not only by the page beforehand.
        await #expect(throws: OwnerDomainError.inUse) { try await domains.delete(id: claim.id, ownerID: ada.id) }
        let agents = AgentDomainMailboxes(database: harness.test.database)
        #expect(try await agents.hasMailbox(at: "support@kept.example"))
        let claims = CustomDomains(database: harness.test.database, mailboxes: [agents])
        #expect(try await claims.isAddressHeldElsewhere("Support@kept.example", than: .proUser("u1")))
        #expect(try await !claims.isAddressHeldElsewhere("support@kept.example", than: .owner(ada.id)))

        _ = try await inboxes.delete(accountID: inbox.accountID, ownerID: ada.id)
        #expect(try await domains.delete(id: claim.id, ownerID: ada.id))
    }
}
