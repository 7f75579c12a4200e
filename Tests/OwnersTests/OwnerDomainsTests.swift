import DNS
import Directory
import Owners
import PosternTestSupport
import Testing

/// Atomic custom domains: an owner adds a domain, publishes the TXT token (or an MX naming this server), verifies.
@Suite("Owners: custom domains checked by DNS")
struct OwnerDomainsTests {
    typealias Zone = LoopbackDNSServer.Zone

    static func domains(
        _ harness: OwnersHarness, _ server: LoopbackDNSServer, limit: Int = 5,
        served: [String] = ["agents.localhost", "mail.localhost"], otherClaims: (any CustomDomainClaims)? = nil
    ) -> OwnerDomains {
        let clock = harness.clock
        return OwnerDomains(
            database: harness.test.database,
            resolver: DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(300)),
            mxHost: "mx.postern.test", served: served, limit: limit, otherClaims: otherClaims, clock: { clock.now })
    }

    @Test("pending until the TXT token is published; verified for good once it was; MX followed on every check")
    func verify() async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try OwnersHarness()
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

    @Test("a resolver that does not answer leaves the domain pending with the reason, never an error")
    func silence() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .silence })
        defer { server.stop() }
        let harness = try OwnersHarness()
        let owner = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let domains = Self.domains(harness, server)
        let added = try await domains.add("example.com", ownerID: owner.id)
        let result = try #require(try await domains.verify(id: added.id, ownerID: owner.id))
        #expect(result.domain.verifiedAt == nil && result.check.message?.contains("no answer in time") == true)
    }

    @Test("bad names, served domains, another owner's domain and the limit are refused")
    func refusals() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try OwnersHarness()
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "battery staple")
        let domains = OwnerDomainsTests.domains(harness, server, limit: 2)
        for bad in ["localhost", "exa mple.com", "-x.com", ""] {
            await #expect(throws: OwnerDomainError.invalidDomain) { try await domains.add(bad, ownerID: ada.id) }
        }
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("Agents.Localhost", ownerID: ada.id) }
        let first = try await domains.add("a.example", ownerID: ada.id)
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("a.example", ownerID: bob.id) }
        _ = try await domains.add("b.example", ownerID: ada.id)
        await #expect(throws: OwnerDomainError.limitReached) { try await domains.add("c.example", ownerID: ada.id) }
        #expect(try await domains.verify(id: first.id, ownerID: bob.id) == nil)
        #expect(try await !domains.delete(id: first.id, ownerID: bob.id))
        #expect(try await domains.delete(id: first.id, ownerID: ada.id))
        #expect(try await domains.domains(ownerID: ada.id).map(\.domain) == ["b.example"])
    }
}

@Suite("Owners: one domain, one holder across surfaces")
struct OwnerDomainClaimsTests {
    struct Held: CustomDomainClaims {
        let domains: Set<String>
        func holds(domain: String) async throws -> Bool { domains.contains(domain) }
    }

    @Test("a domain a Mail.td Pro user holds is refused; an owner's domain is reported held")
    func claims() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try OwnersHarness()
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let domains = OwnerDomainsTests.domains(
            harness, server, served: [], otherClaims: Held(domains: ["pro.example"]))
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("PRO.example", ownerID: ada.id) }
        _ = try await domains.add("mine.example", ownerID: ada.id)
        let claims = OwnerDomainClaims(database: harness.test.database)
        #expect(try await claims.holds(domain: "mine.example"))
        #expect(try await !claims.holds(domain: "pro.example"))
    }

    @Test("a domain another surface took between the first look and the insert is given up: taken, no row left")
    func racingClaim() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try OwnersHarness()
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let other = TakenMeanwhile()
        let domains = OwnerDomainsTests.domains(harness, server, otherClaims: other)
        await #expect(throws: OwnerDomainError.taken) { try await domains.add("race.example", ownerID: ada.id) }
        #expect(other.asked.withLock { $0 } == 2)
        #expect(try await domains.domains(ownerID: ada.id).isEmpty)
        #expect(try await !OwnerDomainClaims(database: harness.test.database).holds(domain: "race.example"))
    }
}
