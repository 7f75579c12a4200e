import Audit
import PosternTestSupport
import Testing

@testable import MailboxAccounts

/// The Pro side of the audit trail: API tokens made and revoked, custom domains added, verified and removed, each
/// recorded once, as the Pro user (no owner: Pro users have no /owner page), never with the token itself.
@Suite("Mail.td Pro: the audit trail")
struct MailboxAuditTests {
    @Test(
        "API tokens made and revoked, domains added, verified and removed: one event each, no secret",
        arguments: StorageBackend.allCases)
    func proEvents(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try MailboxDomainTests.harness(backend, server)
        let jwt = try await harness.proToken(email: "audit@example.com")
        let userID = await harness.send(.GET, "/api/user/me", bearer: jwt).string("id")
        #expect(try await harness.auditEvents().isEmpty)

        let created = await harness.send(.POST, "/api/user/tokens", json: #"{"name":"ci"}"#, bearer: jwt)
        let tokenID = created.string("id")
        let secret = created.string("token")
        #expect(created.status == 201 && !secret.isEmpty)
        #expect(await harness.send(.DELETE, "/api/user/tokens/\(tokenID)", bearer: jwt).status == 204)
        #expect(await harness.send(.DELETE, "/api/user/tokens/\(tokenID)", bearer: jwt).status == 204)  // no change

        let domain = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"Audit.Test"}"#, bearer: jwt)
        let id = domain.string("id")
        _ = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: jwt)  // pending: nothing
        zone.set("audit.test", MailboxDomainTests.txt, .txt([domain.string("verify_token")]))
        #expect(await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: jwt)["verify_status"] == "verified")
        _ = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: jwt)  // verified already: nothing
        #expect(await harness.send(.DELETE, "/api/user/domains/\(id)", bearer: jwt).status == 204)

        let events = try await harness.auditEvents()
        #expect(
            events.map(\.action) == [
                .proTokenCreated, .proTokenRevoked, .domainAdded, .domainVerified, .domainRemoved,
            ])
        #expect(events.map(\.target) == [tokenID, tokenID, "audit.test", "audit.test", "audit.test"])
        #expect(events.allSatisfy { $0.actorKind == .pro && $0.actorID == userID && $0.ownerID == nil })
        #expect(events.allSatisfy { $0.clientAddress == "192.0.2.10" })
        #expect(!events.contains { $0.target.contains(secret) || ($0.details ?? "").contains(secret) })
    }
}
