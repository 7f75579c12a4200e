import AuthCrypto
import Foundation
import JMAP
import Logging
import MCPServer
import MailDelivery
import MailStore
import PosternTestSupport
import ServerKit
import Storage
import Testing

/// MCP and JMAP as the server composes them for owners' access tokens (MCP's owner access, JMAP behind the resource
/// side) and inbox API keys, over a fresh database of the given backend holding an owner's inboxes
/// (``OwnedInboxesFixture``), driven through their routes. The fixture's members read through the harness.
struct OAuthMCPHarness: OwnedInboxesHarness, @unchecked Sendable {
    static let base = "http://mcp.test"

    let test: TestDatabase
    let owners: OwnedInboxesFixture
    let client: RouteClient

    /// The JMAP resource (named here: ``jmap(_:token:account:)`` hides the fixture's).
    var jmap: String { owners.jmap }

    /// - Parameter onSubmission: told of each submission JMAP (and MCP through it) makes.
    static func start(
        _ backend: StorageBackend,
        onSubmission: @escaping @Sendable (JMAPService.SubmissionOutcome) async -> Void = { _ in }
    ) async throws -> OAuthMCPHarness {
        let test = try backend.makeDatabase(logger: Logger(label: "oauth-mcp-tests"))
        let owners = try await OwnedInboxesFixture(database: test.database, base: base)
        let store = MailStore(database: test.database)
        let delivery = LocalDelivery(directory: owners.directory, store: store, clock: OwnedInboxesFixture.now)
        var jmapConfiguration = JMAPConfiguration(baseURL: base)
        jmapConfiguration.rateLimitsEnabled = false
        let jmap = JMAPService(
            configuration: jmapConfiguration, authenticator: owners.jmapAuthenticator, store: store,
            directory: owners.directory, delivery: delivery, clock: OwnedInboxesFixture.now,
            onSubmission: onSubmission, outbound: .deliveryOff(test.database, changes: store.changes))
        var router = ContextRouter()
        jmap.register(into: &router)
        var configuration = MCPConfiguration(baseURL: base)
        configuration.rateLimitsEnabled = false
        MCPService(
            configuration: configuration, authenticator: owners.apiKeys,
            owners: MCPOwnerAccess(verifier: owners.grants, principals: owners.principals, issuer: base),
            jmap: jmap, mail: store, clock: OwnedInboxesFixture.now, sessionSecret: SecureRandom.bytes(32)
        ).register(into: &router)
        return OAuthMCPHarness(test: test, owners: owners, client: RouteClient(router: router, requestID: "oauth-mcp"))
    }

    /// `POST /jmap` with a JMAP request of `calls`, the bearer and `X-Atomic-Account-Id`.
    func jmap(_ calls: [[Any]], token: String, account: String) async throws -> TestResponse {
        try await client.json(
            "POST", "/jmap",
            [
                "using": [JMAPCapabilities.core, JMAPCapabilities.mail, JMAPCapabilities.submission],
                "methodCalls": calls,
            ], headers: [("Authorization", "Bearer " + token), ("X-Atomic-Account-Id", account)])
    }

    /// An MCP session opened with `headers`; its id.
    func mcpSession(_ headers: [(String, String)]) async throws -> String {
        let response = try await client.json(
            "POST", "/mcp",
            [
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": [
                    "protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "t", "version": "1"],
                ],
            ], headers: headers)
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.header("Mcp-Session-Id"))
    }

    /// `tools/call` of `name` in session `session`.
    func callTool(
        _ name: String, _ arguments: [String: Any], session: String, _ headers: [(String, String)]
    ) async throws -> TestResponse {
        try await client.json(
            "POST", "/mcp",
            ["jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ["name": name, "arguments": arguments]],
            headers: headers + [("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-06-18")])
    }

    /// The text of a tool result and whether it is an error.
    static func toolText(_ response: TestResponse) throws -> (text: String, isError: Bool) {
        let result = try #require(try response.json()["result"] as? [String: Any], "\(response.text)")
        let content = try #require(result["content"] as? [[String: Any]])
        return (content.first?["text"] as? String ?? "", result["isError"] as? Bool ?? false)
    }

    func stop() async {}
}
