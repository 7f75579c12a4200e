import JSON
import PosternTestSupport
import Testing

@testable import MailboxAccounts

/// Mail.td's billing endpoints on a self-hosted server: the truth, in shapes the SDKs parse.
@Suite("Mail.td Pro billing")
struct MailboxBillingTests {
    @Test(
        "status: active, cancel_mode none, no scheduled cancel; cancel, resume and portal: 501 billing_not_available",
        arguments: StorageBackend.allCases)
    func selfHosted(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "bill@example.com")
        let status = await harness.send(.GET, "/api/user/subscription/status", bearer: token)
        #expect(status.status == 200)
        #expect(status["status"] == "active" && status["cancel_mode"] == "none")
        #expect(status["scheduled_cancel_at"] == .null)
        #expect(status["provider"] == "self_hosted")
        for path in ["/api/user/subscription/cancel", "/api/user/subscription/resume", "/api/user/billing/portal"] {
            let response = await harness.send(.POST, path, bearer: token)
            #expect(response.status == 501 && response.error == "billing_not_available", "\(path)")
            #expect(await harness.send(.POST, path).status == 401, "\(path) without a token")
        }
        let free = try await harness.createAccount("free@mail.localhost")
        #expect(await harness.send(.GET, "/api/user/subscription/status", bearer: free.token).status == 401)
    }

    @Test("the portal answers the operator's page when one is configured", arguments: StorageBackend.allCases)
    func portal(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.billingPortalURL = "https://billing.example.com/portal" }
        let token = try await harness.proToken(email: "portal@example.com")
        let response = await harness.send(.POST, "/api/user/billing/portal", bearer: token)
        #expect(response.status == 200 && response["url"] == "https://billing.example.com/portal")
    }
}
