import Audit
import HTTP1
import OAuthServer
import PosternTestSupport
import Testing

/// Apps in the audit trail: an owner's approval at the consent (and the inbox made there), an app revoking its own
/// grant at /oauth/revoke; both on the owner's trail.
@Suite("OAuth: the audit trail")
struct OAuthAuditTests {
    @Test(
        "approving records inbox.created and app.approved for the owner; the app's own revocation app.revoked",
        arguments: StorageBackend.allCases)
    func approveAndRevoke(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        let (_, csrf, ticket) = try await OAuthAuthorizeTests.consentPage(harness, OAuthAuthorizeTests.query(client.id))
        let before = try await harness.auditEvents().count
        let approved = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("scope", "mail.read"), ("new_inbox", "made-here"),
                ("reach", "inbox"), ("decision", "approve"),
            ])
        let code = try #require(OAuthHarness.location(approved)["code"])
        let new = Array(try await harness.auditEvents().dropFirst(before))
        #expect(new.map(\.action) == [.inboxCreated, .appApproved])
        #expect(new.allSatisfy { $0.ownerID == owner.id && $0.actorKind == .owner })
        // Both record the browser's address, as a sign-in does.
        #expect(new.allSatisfy { $0.clientAddress != nil && $0.clientAddress?.isEmpty == false }, "\(new)")
        #expect(new.first?.target == "made-here@agents.localhost")
        let grantID = try #require(new.last?.target)
        #expect(new.last?.details == AuditDetails.json(["client_id": client.id, "scopes": "mail.read"]))
        #expect(!new.contains { ($0.details ?? "").contains(code) })

        let tokens = try #require(
            OAuthHarness.json(
                await harness.exchange(code, clientID: client.id, verifier: OAuthAuthorizeTests.verifier)))
        let refresh = try #require(tokens["refresh_token"]?.stringValue)
        let count = try await harness.auditEvents().count
        let revoked = await harness.send(.POST, "/oauth/revoke", form: [("client_id", client.id), ("token", refresh)])
        #expect(revoked.status == .ok)
        let last = Array(try await harness.auditEvents().dropFirst(count))
        #expect(last.map(\.action) == [.appRevoked])
        #expect(last.first?.target == grantID && last.first?.ownerID == owner.id)
        #expect(last.first?.actorKind == .app && last.first?.actorID == client.id)
        let details = last.first?.details ?? ""
        #expect(!details.contains(refresh))
    }
}
