import AuthCrypto
import Foundation
import PosternTestSupport
import Testing

/// MCP's OAuth half (`api-docs/oauth-mcp-contract.md` 1.12, section 4): metadata, the 401 challenge, inbox
/// selection, scopes on every sending tool; MCP and JMAP as the server composes them (``OAuthMCPHarness``).
@Suite("MCP with OAuth access tokens")
struct OAuthMCPTests {
    func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer " + token)] }

    @Test(
        "the protected-resource metadata names the authorization server; no credential gets the challenge",
        arguments: StorageBackend.allCases)
    func discovery(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let metadata = try await h.client.request("GET", "/.well-known/oauth-protected-resource/mcp")
        let body = try metadata.json()
        #expect(body["resource"] as? String == h.mcp)
        #expect(body["authorization_servers"] as? [String] == [h.base])
        #expect(body["scopes_supported"] as? [String] == ["mail.read", "mail.send"])
        let anonymous = try await h.client.json("POST", "/mcp", ["jsonrpc": "2.0", "id": 1, "method": "ping"])
        #expect(anonymous.status == 401)
        #expect(
            anonymous.header("WWW-Authenticate")
                == "Bearer resource_metadata=\"\(h.base)/.well-known/oauth-protected-resource/mcp\"")
    }

    @Test(
        "list_agents lists the owner's inboxes; tools default to the grant's inbox, agent_id picks another",
        arguments: StorageBackend.allCases)
    func selection(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (token, _) = try h.token(resource: h.mcp, defaultInbox: h.bob.accountID)
        let session = try await h.mcpSession(bearer(token))
        let agents = try OAuthMCPHarness.toolText(
            try await h.callTool("list_agents", [:], session: session, bearer(token)))
        #expect(agents.text.contains(h.ada.accountID) && agents.text.contains(h.bob.accountID))
        #expect(!agents.text.contains(h.eve.accountID))
        let inbox = try OAuthMCPHarness.toolText(
            try await h.callTool("read_inbox", [:], session: session, bearer(token)))
        #expect(!inbox.isError && inbox.text.contains(h.bob.address), "\(inbox.text)")
        let picked = try OAuthMCPHarness.toolText(
            try await h.callTool("read_inbox", ["agent_id": h.ada.accountID], session: session, bearer(token)))
        #expect(!picked.isError && picked.text.contains(h.ada.address))
        let foreign = try OAuthMCPHarness.toolText(
            try await h.callTool("read_inbox", ["agent_id": h.eve.accountID], session: session, bearer(token)))
        #expect(foreign.isError && foreign.text.hasPrefix("access_denied"))

        let (undecided, _) = try h.token(resource: h.mcp)
        let other = try await h.mcpSession(bearer(undecided))
        let ask = try OAuthMCPHarness.toolText(
            try await h.callTool("read_inbox", [:], session: other, bearer(undecided)))
        #expect(ask.isError && ask.text.contains("list_agents"))
    }

    @Test(
        "a session outlives a refresh and a step-up: it is bound to the owner and client, not the token or grant",
        arguments: StorageBackend.allCases)
    func sessionFollowsGrant(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let client = try h.rows.client()
        let grant = try h.rows.grant(
            owner: h.owner, client: client, scope: "mail.read", resource: h.mcp, agentID: h.ada.accountID)
        func mint() throws -> String {
            try h.accessToken(grant: grant, client: client, resource: h.mcp, scope: "mail.read")
        }
        let first = try mint()
        let second = try mint()
        let session = try await h.mcpSession(bearer(first))
        let result = try OAuthMCPHarness.toolText(
            try await h.callTool("read_inbox", [:], session: session, bearer(second)))
        #expect(!result.isError, "\(result.text)")
        // A step-up is a new grant of the same owner for the same client.
        let wider = try h.rows.grant(
            owner: h.owner, client: client, scope: "mail.read mail.send", resource: h.mcp, agentID: h.ada.accountID)
        let stepped = try h.accessToken(grant: wider, client: client, resource: h.mcp, scope: "mail.read mail.send")
        #expect(try await h.callTool("list_agents", [:], session: session, bearer(stepped)).status == 200)
        // Another client of the same owner has sessions of its own.
        let (otherClient, _) = try h.token(resource: h.mcp)
        #expect(try await h.callTool("list_agents", [:], session: session, bearer(otherClient)).status == 404)
    }

    @Test(
        "mail.send is checked on every sending tool: HTTP 403 with the insufficient_scope challenge, nothing sent",
        arguments: StorageBackend.allCases)
    func insufficientScope(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (token, _) = try h.token(resource: h.mcp, scope: "mail.read", defaultInbox: h.ada.accountID)
        let session = try await h.mcpSession(bearer(token))
        let calls: [(String, [String: Any])] = [
            ("send_email", ["to": h.bob.address, "subject": "s", "body": "b"]),
            ("reply_to_message", ["message_id": "m", "body": "b"]),
            ("run_preset", ["name": "send_mail", "variables": ["to": h.bob.address, "subject": "s", "body": "b"]]),
            (
                "jmap_request",
                ["method_calls": OwnedInboxesFixture.sendCalls(from: h.ada.address, to: h.bob.address)]
            ),
        ]
        for (name, arguments) in calls {
            let response = try await h.callTool(name, arguments, session: session, bearer(token))
            #expect(response.status == 403, "\(name): \(response.text)")
            #expect(
                response.header("WWW-Authenticate")
                    == "Bearer error=\"insufficient_scope\", scope=\"mail.send\", resource_metadata=\"\(h.base)/.well-known/oauth-protected-resource/mcp\"",
                "\(name)")
        }
        let bobInbox = try await h.jmap(
            [["Email/query", [:], "q"]], token: try h.token(resource: h.jmap).token, account: h.bob.accountID)
        let ids = ((try bobInbox.json()["methodResponses"] as? [[Any]])?[0][1] as? [String: Any])?["ids"] as? [Any]
        #expect(ids?.isEmpty == true)
        let dryRun = try await h.callTool(
            "run_preset",
            ["name": "send_mail", "dry_run": true, "variables": ["to": h.bob.address, "subject": "s", "body": "b"]],
            session: session, bearer(token))
        let dryText = try OAuthMCPHarness.toolText(dryRun)
        #expect(dryRun.status == 200 && !dryText.isError)

        let (sender, _) = try h.token(resource: h.mcp, scope: "mail.read mail.send", defaultInbox: h.ada.accountID)
        let senderSession = try await h.mcpSession(bearer(sender))
        let sent = try OAuthMCPHarness.toolText(
            try await h.callTool(
                "send_email", ["to": h.bob.address, "subject": "s", "body": "b"], session: senderSession, bearer(sender)
            ))
        #expect(!sent.isError, "\(sent.text)")
    }

    @Test(
        "401 invalid_token with the resource metadata: a /jmap token, a revoked grant; API keys still work",
        arguments: StorageBackend.allCases)
    func invalidToken(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (jmapToken, _) = try h.token(resource: h.jmap)
        let (token, grant) = try h.token(resource: h.mcp)
        let session = try await h.mcpSession(bearer(token))
        try await h.revoke(grant)
        for refused in [jmapToken, token] {
            let response = try await h.callTool("list_agents", [:], session: session, bearer(refused))
            #expect(response.status == 401)
            #expect(
                response.header("WWW-Authenticate")
                    == "Bearer resource_metadata=\"\(h.base)/.well-known/oauth-protected-resource/mcp\", error=\"invalid_token\""
            )
        }
        for headers in [bearer(h.adaKey), [("X-API-Key", h.adaKey)], [("Authorization", "ApiKey " + h.adaKey)]] {
            let keySession = try await h.mcpSession(headers)
            let agents = try OAuthMCPHarness.toolText(
                try await h.callTool("list_agents", [:], session: keySession, headers))
            #expect(agents.text.contains(h.ada.accountID) && !agents.text.contains(h.bob.accountID))
        }
    }

    @Test(
        "jmap_request with mail.send alone: the submission's implicit Email/set only finishes the send",
        arguments: StorageBackend.allCases)
    func submissionImplicitSet(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (sender, _) = try h.token(resource: h.mcp, scope: "mail.send", defaultInbox: h.ada.accountID)
        let session = try await h.mcpSession(bearer(sender))
        let overMCP = SubmissionOutcomes(owners: h.owners) { calls, token in
            let result = try OAuthMCPHarness.toolText(
                try await h.callTool("jmap_request", ["method_calls": calls], session: session, bearer(token)))
            #expect(!result.isError, "\(result.text)")
            let body = try JSONSerialization.jsonObject(with: Data(result.text.utf8)) as? [String: Any]
            return try #require(body?["methodResponses"] as? [[Any]], "\(result.text)")
        }
        let (reader, _) = try h.token(resource: h.jmap)
        let overJMAP = SubmissionOutcomes(owners: h.owners) { calls, token in
            let response = try await h.jmap(calls, token: token, account: h.ada.accountID)
            return try #require(try response.json()["methodResponses"] as? [[Any]], "\(response.text)")
        }
        let planted = try await overMCP.send(
            ["onSuccessUpdateEmail": ["#s": ["mailboxIds": ["inbox": true], "keywords/$draft": NSNull()]]],
            token: sender)
        #expect(planted.error(in: "notUpdated") == "forbidden", "\(planted.implicit)")
        let email = try await overJMAP.email(planted.id, token: reader)
        #expect(email.mailboxes == ["sent"] && email.keywords == ["$draft"])
        let erased = try await overMCP.send(["onSuccessDestroyEmail": ["#s"]], token: sender)
        #expect(erased.error(in: "notDestroyed") == "forbidden", "\(erased.implicit)")
        #expect(try await overJMAP.email(erased.id, token: reader).mailboxes == ["sent"])
        let finished = try await overMCP.send(
            ["onSuccessUpdateEmail": ["#s": ["keywords/$draft": NSNull(), "mailboxIds": ["sent": true]]]],
            token: sender)
        #expect(finished.updated == [finished.id], "\(finished.implicit)")
        #expect(try await overJMAP.email(finished.id, token: reader).keywords.isEmpty)
    }

    @Test(
        "OAuth sessions: a closed id stays closed; an id MACed with the owner and client but no server secret fails",
        arguments: StorageBackend.allCases)
    func sessionIDs(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let client = try h.rows.client()
        let grant = try h.rows.grant(
            owner: h.owner, client: client, scope: "mail.read", resource: h.mcp, agentID: h.ada.accountID)
        let token = try h.accessToken(grant: grant, client: client, resource: h.mcp, scope: "mail.read")
        let session = try await h.mcpSession(bearer(token))
        #expect(try await h.callTool("list_agents", [:], session: session, bearer(token)).status == 200)
        let closing = bearer(token) + [("Mcp-Session-Id", session)]
        #expect(try await h.client.request("DELETE", "/mcp", headers: closing).status == 204)
        #expect(try await h.callTool("list_agents", [:], session: session, bearer(token)).status == 404)
        let again = try await h.client.request("DELETE", "/mcp", headers: closing)
        #expect(again.status == 404)

        // Everything else in an OAuth session's MAC key is in the access token (`sub`, `client_id`): an id minted
        // with that key alone, as anyone holding a token could, is a made-up id.
        let now = UInt64(OwnedInboxesFixture.now())
        var body = (0..<8).map { UInt8(truncatingIfNeeded: now >> (56 - 8 * $0)) }
        body.append(1)  // 2025-06-18
        body += SecureRandom.bytes(16)
        let key = SHA256.hash("oauth:" + h.owner + " " + client)
        let forged = Base64URL.encode(body + HMACSHA256.authenticationCode(key: key, message: body).prefix(16))
        #expect(try await h.callTool("list_agents", [:], session: forged, bearer(token)).status == 404)
    }
}
