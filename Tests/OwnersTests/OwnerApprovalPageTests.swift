import Owners
import PosternTestSupport
import Testing

/// `/owner` tells an owner who signed up themselves that their inboxes wait for the operator's approval to send
/// outside (issue 49), when sending outside needs it (outbound delivery on, `POSTERN_OUTBOUND_SENDERS=owned`).
@Suite("Owners: waiting for approval to send outside")
struct OwnerApprovalPageTests {
    static func page(_ backend: StorageBackend, needsApproval: Bool, approved: Bool) async throws -> String {
        let harness = try OwnersHarness(backend) { $0.outsideSendingNeedsApproval = needsApproval }
        harness.routeInboxPages()
        _ = try await harness.service.owners.create(
            email: "ada@example.com", password: "correct horse", approved: approved)
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let page = await harness.send(.GET, "/owner")
        #expect(page.status.code == 200)
        return page.text
    }

    @Test(
        "a signed-up owner is told they wait; an approved owner, or a server where it does not matter, says nothing",
        arguments: StorageBackend.allCases)
    func notice(_ backend: StorageBackend) async throws {
        let waiting = try await Self.page(backend, needsApproval: true, approved: false)
        #expect(waiting.contains("id=\"awaiting-approval\""))
        #expect(waiting.contains("Waiting for approval to send outside"))
        #expect(try await !Self.page(backend, needsApproval: true, approved: true).contains("awaiting-approval"))
        #expect(try await !Self.page(backend, needsApproval: false, approved: false).contains("awaiting-approval"))
    }

    @Test(
        "an owner made by sign-up waits for approval; one the operator makes is approved as made",
        arguments: StorageBackend.allCases)
    func signUpWaits(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend) { $0.signUpOpen = true }
        let page = await harness.send(.GET, "/owner/sign-up")
        let token = try #require(OwnersHarness.csrf(in: page))
        let created = await harness.send(
            .POST, "/owner/sign-up",
            form: ["email": "bea@example.com", "password": "correct horse", "csrf_token": token])
        #expect(created.status.code == 303)
        let made = try await harness.service.owners.create(
            email: "ada@example.com", password: "correct horse", approved: true)
        let owners = try await harness.service.owners.list()
        #expect(owners.first { $0.email == "bea@example.com" }?.approvedAt == nil)
        #expect(owners.first { $0.email == "ada@example.com" }?.approvedAt == made.createdAt)
        let approvals = OwnerApprovals(database: harness.test.database)
        let bea = try #require(owners.first { $0.email == "bea@example.com" })
        #expect(try await !approvals.isApproved(ownerID: bea.id))
        #expect(try await approvals.isApproved(ownerID: made.id))
    }
}
