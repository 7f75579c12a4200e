import AgentAuth
import AuthCrypto
import Directory
import Foundation
import JWT
import OAuthResource
import PosternTestSupport
import Testing

@testable import PosternApp

/// A real Postern with an owner holding two agent inboxes and another owner holding one, and access tokens minted
/// as the authorization server mints them (RFC 9068, EdDSA, one `oauth_access_tokens` row each) for grants written
/// directly: the resource side tested without the authorization server.
struct OAuthOwnerHarness: @unchecked Sendable {
    let server: TestServer
    let client: TestHTTPClient
    let rows: OAuthGrantRows
    let base: String
    let owner: String
    /// The owner's inboxes, oldest first.
    let ada: OwnedInbox
    let bob: OwnedInbox
    /// Another owner's inbox.
    let eve: OwnedInbox
    let adaKey: String

    static func start(server given: TestServer? = nil) async throws -> OAuthOwnerHarness {
        let server: TestServer
        if let given { server = given } else { server = try await TestServer.start() }
        let database = server.runtime.database
        let rows = OAuthGrantRows(database: database)
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: database), domain: server.runtime.configuration.agent.inboxDomain,
            clock: { 1_800_000_000 })
        let owner = try rows.owner()
        let other = try rows.owner()
        let (ada, adaKey) = try await inboxes.createInbox(username: "ada-" + Self.suffix(), ownerID: owner)
        let (bob, _) = try await inboxes.createInbox(username: "bob-" + Self.suffix(), ownerID: owner)
        let (eve, _) = try await inboxes.createInbox(username: "eve-" + Self.suffix(), ownerID: other)
        return OAuthOwnerHarness(
            server: server, client: try server.client(), rows: rows, base: server.runtime.identity.baseURL,
            owner: owner, ada: ada, bob: bob, eve: eve, adaKey: adaKey)
    }

    private static func suffix() -> String { String(SecureRandom.hex(byteCount: 4)) }

    var jmap: String { base + "/jmap" }
    var mcp: String { base + "/mcp" }

    /// A grant of the owner for a new client, and an access token of it; the token and the grant id.
    /// `inboxOnly`: the grant is bound to that inbox ("only this inbox" at consent).
    func token(
        resource: String, scope: String = "mail.read mail.send", defaultInbox: String? = nil, inboxOnly: String? = nil
    ) throws -> (token: String, grant: String) {
        let client = try rows.client()
        let grant = try rows.grant(
            owner: owner, client: client, scope: scope, resource: resource, agentID: defaultInbox,
            boundAccountID: inboxOnly)
        return (try accessToken(grant: grant, client: client, resource: resource, scope: scope), grant)
    }

    /// A new access token of `grant` (recorded in `oauth_access_tokens`), as a refresh mints one.
    func accessToken(grant: String, client: String, resource: String, scope: String) throws -> String {
        let now = Operations.unixNow()
        let jti = SecureRandom.identifier(byteCount: 16)
        try rows.token(jti: jti, grant: grant, expiresAt: now + 900)
        var claims = JWTClaims(
            issuer: server.runtime.identity.baseURL, subject: owner, purpose: .oauthAccess, issuedAt: now, ttl: 900,
            jti: jti)
        claims["aud"] = .string(resource)
        claims["client_id"] = .string(client)
        claims["scope"] = .string(scope)
        return try server.runtime.keys.sign(claims, for: .oauthAccess)
    }

    /// Revokes `grant` as the authorization server's revocation path does: the row, then this instance's cache
    /// (other instances hear it through `postern_grants` on PostgreSQL).
    func revoke(_ grant: String) async throws {
        try await rows.revoke(grant, at: Operations.unixNow())
        server.runtime.grantCache.invalidate(grantID: grant)
    }

    static let using = [
        "urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail", "urn:ietf:params:jmap:submission",
    ]

    /// `POST path` with a JMAP request of `calls`, the bearer and `X-Atomic-Account-Id` when given.
    func jmap(
        _ calls: [[Any]], token: String, account: String?, path: String = "/jmap"
    ) async throws -> TestResponse {
        var headers = [("Authorization", "Bearer " + token)]
        if let account { headers.append(("X-Atomic-Account-Id", account)) }
        return try await client.json("POST", path, ["using": Self.using, "methodCalls": calls], headers: headers)
    }

    /// The calls that send one message from `from` to `to`: the draft `d` (call `c`, with `keywords` when given),
    /// its submission `s` (call `s`, with the members of `submission` besides `create`).
    static func sendCalls(
        from: String, to: String, keywords: [String: Bool]? = nil, submission: [String: Any] = [:]
    ) -> [[Any]] {
        var draft: [String: Any] = [
            "mailboxIds": ["drafts": true], "from": [["email": from]], "to": [["email": to]],
            "subject": "hello", "textBody": [["partId": "b", "type": "text/plain"]],
            "bodyValues": ["b": ["value": "hi"]],
        ]
        if let keywords { draft["keywords"] = keywords }
        return [
            ["Email/set", ["create": ["d": draft]], "c"],
            ["EmailSubmission/set", submission.merging(["create": ["s": ["emailId": "#d"]]]) { $1 }, "s"],
        ]
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

    func stop() async { await server.stop() }
}
