import PosternTestSupport

@testable import PosternApp

/// A real Postern with an owner holding two agent inboxes and another owner holding one, and access tokens minted
/// as the authorization server mints them for grants written directly (``OwnedInboxesFixture`` over the server's
/// database, keys and grant cache): the resource side of a whole server tested without the authorization server.
/// The fixture's members read through the harness (`h.ada`, `h.jmap`).
struct OAuthOwnerHarness: OwnedInboxesHarness, @unchecked Sendable {
    let server: TestServer
    let owners: OwnedInboxesFixture

    static func start(_ backend: StorageBackend, server given: TestServer? = nil) async throws -> OAuthOwnerHarness {
        let server: TestServer
        if let given { server = given } else { server = try await TestServer.start(backend) }
        let runtime = server.runtime
        let owners = try await OwnedInboxesFixture(
            database: runtime.database, base: runtime.identity.baseURL,
            agentDomain: runtime.configuration.agent.inboxDomain, quota: runtime.configuration.agent.inboxQuota,
            keys: runtime.keys, cache: runtime.grantCache)
        return OAuthOwnerHarness(server: server, owners: owners)
    }

    /// A grant of the owner for a new client and an access token of it (``OwnedInboxesFixture/token``).
    func stop() async { await server.stop() }
}
