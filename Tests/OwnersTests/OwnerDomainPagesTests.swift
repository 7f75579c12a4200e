import AgentAuth
import DNS
import HTTP1
import Owners
import PosternTestSupport
import Testing

/// `/owner/domains` through its routes: add, verify against a loopback DNS zone, create an inbox on the domain.
@Suite("Owners: the custom domains page")
struct OwnerDomainPagesTests {
    static func harness(_ server: LoopbackDNSServer) throws -> OwnersHarness {
        try OwnersHarness {
            $0.dnsResolver = server.address
            $0.dnsTimeout = .milliseconds(300)
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

    @Test("add, publish, verify, create an inbox whose key is shown once; a stranger's id is a 404")
    func flow() async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(server)
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
        let again = await harness.send(
            .POST, "/owner/domains/\(domain.id)/inboxes", form: ["local_part": "support", "csrf_token": csrf])
        #expect(again.status.code == 409)

        let stranger = await harness.send(.POST, "/owner/domains/00000000-0000-0000-0000-000000000000/delete", form: ["csrf_token": csrf])
        #expect(stranger.status.code == 404)
        let deleted = await harness.send(.POST, "/owner/domains/\(domain.id)/delete", form: ["csrf_token": csrf])
        #expect(deleted.status.code == 200 && !Self.text(deleted).contains("data-domain=\"example.com\""))
    }
}
