import CustomDomains
import DNS
import Directory
import Owners
import Storage
import PosternTestSupport
import Testing

/// Atomic custom domains: an owner adds a domain, publishes the claim's own TXT token, verifies; the MX is routing only.
@Suite("Owners: custom domains checked by DNS")
struct OwnerDomainsTests {
    typealias Zone = LoopbackDNSServer.Zone

    static func domains(
        _ harness: OwnersHarness, _ server: LoopbackDNSServer, limit: Int = 5,
        served: [String] = ["agents.localhost", "mail.localhost"]
    ) -> OwnerDomains {
        let clock = harness.clock
        return OwnerDomains(
            claims: CustomDomains(database: harness.test.database, verificationWindow: 7 * 86_400),
            resolver: DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(300)),
            mxHost: "mx.postern.test", served: served, limit: limit, clock: { clock.now })
    }

    /// A Mail.td Pro user, holder of claims in the same table as owners' (`mailbox_pro_users`).
    static func proUser(_ harness: OwnersHarness, id: String = "u-pro") async throws -> DomainHolder {
        _ = try await harness.test.database.write { connection in
            try connection.run(
                """
                INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, max_domains, created_at)
                VALUES (?, ?, '', 5, 5, 0)
                """, [.text(id), .text(id + "@example.com")])
        }
        return .proUser(id)
    }

    @Test(
        "pending until the TXT token is published; verified for good once it was; MX followed on every check",
        arguments: StorageBackend.allCases)
    func verify(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let owner = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let domains = Self.domains(harness, server)
        let added = try await domains.add("Example.COM.", ownerID: owner.id)
        #expect(added.domain == "example.com" && added.verifiedAt == nil)
        #expect(try await domains.verified("example.com", ownerID: owner.id) == nil)

        let pending = try #require(try await domains.verify(id: added.id, ownerID: owner.id))
        #expect(pending.domain.verifiedAt == nil && pending.check.message?.contains("TXT record not found") == true)

        zone.set("example.com", 16, .txt([added.verifyToken]))
        harness.clock.advance(60)
        let verified = try #require(try await domains.verify(id: added.id, ownerID: owner.id))
        #expect(verified.domain.verifiedAt == harness.clock.now && !verified.domain.mxConfigured)
        zone.set("example.com", 16, .noSuchName)
        zone.set("example.com", 15, .mx([.init(10, "MX.postern.test.")]))
        harness.clock.advance(60)
        let again = try #require(try await domains.verify(id: added.id, ownerID: owner.id))
        #expect(again.domain.verifiedAt == verified.domain.verifiedAt && again.domain.mxConfigured)
        #expect(try await domains.verified("EXAMPLE.com", ownerID: owner.id)?.mxConfigured == true)
        #expect(try await domains.domains(ownerID: owner.id) == [again.domain])
    }

    @Test(
        "a resolver that does not answer leaves the domain pending with the reason, never an error",
        arguments: StorageBackend.allCases)
    func silence(_ backend: StorageBackend) async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .silence })
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let owner = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let domains = Self.domains(harness, server)
        let added = try await domains.add("example.com", ownerID: owner.id)
        let result = try #require(try await domains.verify(id: added.id, ownerID: owner.id))
        #expect(result.domain.verifiedAt == nil && result.check.message?.contains("no answer in time") == true)
    }

    @Test(
        "bad names, served domains, a domain the owner claims already and the limit are refused",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "battery staple")
        let domains = OwnerDomainsTests.domains(harness, server, limit: 2)
        for bad in ["localhost", "exa mple.com", "-x.com", ""] {
            await #expect(throws: OwnerDomainError.invalidDomain) { try await domains.add(bad, ownerID: ada.id) }
        }
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("Agents.Localhost", ownerID: ada.id) }
        let first = try await domains.add("a.example", ownerID: ada.id)
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("A.example", ownerID: ada.id) }
        _ = try await domains.add("b.example", ownerID: ada.id)
        await #expect(throws: OwnerDomainError.limitReached) { try await domains.add("c.example", ownerID: ada.id) }
        #expect(try await domains.verify(id: first.id, ownerID: bob.id) == nil)
        #expect(try await !domains.delete(id: first.id, ownerID: bob.id))
        #expect(try await domains.delete(id: first.id, ownerID: ada.id))
        #expect(try await domains.domains(ownerID: ada.id).map(\.domain) == ["b.example"])
    }

    @Test(
        "an MX naming this server without the claim's TXT token proves nothing: the domain stays pending",
        arguments: StorageBackend.allCases)
    func mxIsNotProof(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        zone.set("shared.example", 15, .mx([.init(10, "mx.postern.test")]))
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let owner = try await harness.service.owners.create(email: "eve@example.com", password: "correct horse")
        let domains = Self.domains(harness, server)
        let added = try await domains.add("shared.example", ownerID: owner.id)
        let checked = try #require(try await domains.verify(id: added.id, ownerID: owner.id))
        #expect(checked.check.mxFound && !checked.check.txtFound)
        #expect(checked.domain.verifiedAt == nil && checked.domain.mxConfigured)
        #expect(try await domains.verified("shared.example", ownerID: owner.id) == nil)
        // Another claim's token proves nothing either.
        zone.set("shared.example", 16, .txt(["postern-verify-000000000000000000000000"]))
        #expect(try #require(try await domains.verify(id: added.id, ownerID: owner.id)).domain.verifiedAt == nil)
    }

    @Test(
        "a domain another owner only has pending can be claimed too; the first to verify wins, the others are gone",
        arguments: StorageBackend.allCases)
    func firstToVerifyWins(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "battery staple")
        let claims = CustomDomains(database: harness.test.database)
        let pro = try await Self.proUser(harness)
        let domains = Self.domains(harness, server)
        let prosClaim = try await claims.add("contested.example", for: pro, limit: 5, served: [], now: harness.clock.now)
        let squat = try await domains.add("contested.example", ownerID: ada.id)
        let claim = try await domains.add("Contested.example", ownerID: bob.id)
        #expect(squat.verifyToken != claim.verifyToken)
        zone.set("contested.example", 16, .txt([claim.verifyToken]))
        let won = try #require(try await domains.verify(id: claim.id, ownerID: bob.id))
        #expect(won.domain.verifiedAt != nil)
        #expect(try await claims.claim(id: prosClaim.id, of: pro) == nil, "the Pro user's pending claim is gone too")
        #expect(try await domains.domains(ownerID: ada.id).isEmpty)
        #expect(try await domains.verify(id: squat.id, ownerID: ada.id) == nil)
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("contested.example", ownerID: ada.id) }
        #expect(try await claims.verifiedClaim(on: "contested.example")?.holder == .owner(bob.id))
    }

    @Test(
        "a pending claim past the window is deleted (verify says expired; list and the purge drop it); it blocks nobody",
        arguments: StorageBackend.allCases)
    func pendingClaimsLapse(_ backend: StorageBackend) async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "battery staple")
        let domains = Self.domains(harness, server, limit: 2)
        let stale = try await domains.add("stale.example", ownerID: ada.id)
        _ = try await domains.add("listed.example", ownerID: ada.id)
        _ = try await domains.add("purged.example", ownerID: bob.id)
        harness.clock.advance(7 * 86_400 + 1)
        await #expect(throws: OwnerDomainError.expired) { try await domains.verify(id: stale.id, ownerID: ada.id) }
        #expect(try await domains.verify(id: stale.id, ownerID: ada.id) == nil)
        #expect(try await domains.domains(ownerID: ada.id).isEmpty)
        let purged = try await harness.test.database.write { [now = harness.clock.now] connection in
            try OwnerPurge.run(connection, now: now, domainVerificationWindow: 7 * 86_400)
        }
        #expect(purged == 1)
        let left = try await harness.test.database.read { try $0.query("SELECT id FROM custom_domain_claims", []) }
        #expect(left.isEmpty)
        // The limit of 2 counts none of them any more.
        _ = try await domains.add("stale.example", ownerID: ada.id)
        _ = try await domains.add("purged.example", ownerID: ada.id)
    }
}

@Suite("Owners: one domain, one holder across surfaces")
struct OwnerDomainClaimsTests {
    @Test(
        "a domain a Mail.td Pro user holds verified is refused; an owner's domain is reported held once verified",
        arguments: StorageBackend.allCases)
    func claims(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let domains = OwnerDomainsTests.domains(harness, server, served: [])
        let claims = CustomDomains(database: harness.test.database)
        let resolver = DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(300))
        let pro = try await OwnerDomainsTests.proUser(harness)
        let prosClaim = try await claims.add("pro.example", for: pro, limit: 5, served: [], now: harness.clock.now)
        zone.set("pro.example", 16, .txt([prosClaim.verifyToken]))
        _ = try await claims.verify(id: prosClaim.id, of: pro, now: harness.clock.now, resolver: resolver, mxHost: "mx")
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("PRO.example", ownerID: ada.id) }
        let mine = try await domains.add("mine.example", ownerID: ada.id)
        #expect(try await claims.verifiedClaim(on: "mine.example") == nil, "pending holds nothing")
        zone.set("mine.example", 16, .txt([mine.verifyToken]))
        _ = try await domains.verify(id: mine.id, ownerID: ada.id)
        #expect(try await claims.verifiedClaim(on: "mine.example")?.holder == .owner(ada.id))
        #expect(try await claims.verifiedClaim(on: "pro.example")?.holder == pro)
        // The Pro user verifies a domain the owner has pending: the owner's claim goes; a verified one stays.
        _ = try await domains.add("pending.example", ownerID: ada.id)
        let prosPending = try await claims.add("pending.example", for: pro, limit: 5, served: [], now: harness.clock.now)
        zone.set("pending.example", 16, .txt([prosPending.verifyToken]))
        _ = try await claims.verify(id: prosPending.id, of: pro, now: harness.clock.now, resolver: resolver, mxHost: "mx")
        await #expect(throws: DomainClaimError.taken) {
            try await claims.add("mine.example", for: pro, limit: 5, served: [], now: harness.clock.now)
        }
        #expect(try await domains.domains(ownerID: ada.id).map(\.domain) == ["mine.example"])
    }

    @Test(
        "a domain a Pro user verified while the owner's claim was pending is given up: taken, no row left",
        arguments: StorageBackend.allCases)
    func racingClaim(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let domains = OwnerDomainsTests.domains(harness, server)
        let claims = CustomDomains(database: harness.test.database)
        let pro = try await OwnerDomainsTests.proUser(harness)
        let owners = try await domains.add("race.example", ownerID: ada.id)
        let pros = try await claims.add("race.example", for: pro, limit: 5, served: [], now: harness.clock.now)
        zone.set("race.example", 16, .txt([owners.verifyToken, pros.verifyToken]))
        let resolver = DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(300))
        _ = try await claims.verify(id: pros.id, of: pro, now: harness.clock.now, resolver: resolver, mxHost: "mx")
        #expect(try await domains.verify(id: owners.id, ownerID: ada.id) == nil)
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("race.example", ownerID: ada.id) }
        #expect(try await domains.domains(ownerID: ada.id).isEmpty)
    }
}
