import Foundation
import JMAP
import Logging
import MailDelivery
import MailStore
import PosternTestSupport
import ServerKit
import Storage

/// A JMAP service behind the resource side of OAuth, as the server composes it (access tokens with
/// `X-Atomic-Account-Id`, the capability token otherwise), with `GET /api/v1/agents` beside it, over a fresh database
/// of the given backend holding an owner's inboxes (``OwnedInboxesFixture``), driven through its routes.
/// The fixture's members read through the harness (`h.ada`, `h.jmap`).
struct OAuthJMAPHarness: OwnedInboxesHarness, @unchecked Sendable {
    static let base = "http://jmap.test"
    static let using = [JMAPCapabilities.core, JMAPCapabilities.mail, JMAPCapabilities.submission]

    let test: TestDatabase
    let owners: OwnedInboxesFixture
    let client: RouteClient

    /// The JMAP resource (named here: ``jmap(_:token:account:)`` hides the fixture's).
    var jmap: String { owners.jmap }

    static func start(_ backend: StorageBackend) async throws -> OAuthJMAPHarness {
        let test = try backend.makeDatabase(logger: Logger(label: "oauth-jmap-tests"))
        let owners = try await OwnedInboxesFixture(database: test.database, base: base)
        let store = MailStore(database: test.database)
        let delivery = LocalDelivery(directory: owners.directory, store: store, clock: OwnedInboxesFixture.now)
        var configuration = JMAPConfiguration(baseURL: base)
        configuration.rateLimitsEnabled = false
        var router = ContextRouter()
        JMAPService(
            configuration: configuration, authenticator: owners.jmapAuthenticator, store: store,
            directory: owners.directory, delivery: delivery, clock: OwnedInboxesFixture.now,
            outbound: .deliveryOff(test.database, changes: store.changes)
        ).register(into: &router)
        owners.registerAgents(into: &router)
        let client = RouteClient(router: router, requestID: "oauth-jmap")
        return OAuthJMAPHarness(test: test, owners: owners, client: client)
    }

    /// `POST path` with a JMAP request of `calls`, the bearer and `X-Atomic-Account-Id` when given.
    func jmap(
        _ calls: [[Any]], token: String, account: String?, path: String = "/jmap"
    ) async throws -> TestResponse {
        var headers = [("Authorization", "Bearer " + token)]
        if let account { headers.append(("X-Atomic-Account-Id", account)) }
        return try await client.json("POST", path, ["using": Self.using, "methodCalls": calls], headers: headers)
    }

    func stop() async {}
}
