import Directory
import JMAP
import PosternTestSupport
import Synchronization
import Testing

/// A message an agent sends with a token it took by token exchange (RFC 8693) is the agent's act for the inbox's
/// owner (issue 86): MCP's sending tools and JMAP's `EmailSubmission/set` hand the submission's outcome on with the
/// verified actor chain, which the composition root writes to the owner's audit trail; the owner's own token hands on
/// none.
@Suite("MCP and JMAP: a submission with an exchanged token carries who acted for whom")
struct OAuthActingSubmissionTests {
    func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer " + token)] }

    @Test("send_email and EmailSubmission/set with delegated tokens carry the actor chain; the owner's own token none",
        arguments: StorageBackend.allCases)
    func delegation(_ backend: StorageBackend) async throws {
        let outcomes = Mutex<[JMAPService.SubmissionOutcome]>([])
        let h = try await OAuthMCPHarness.start(backend) { outcome in outcomes.withLock { $0.append(outcome) } }
        defer { Task { await h.stop() } }
        let (agent, subAgent) = (try await h.owners.agentClient(), try await h.owners.agentClient())
        let (own, grant) = try h.token(resource: h.mcp, defaultInbox: h.ada.accountID)
        let (ownJMAP, jmapGrant) = try h.token(resource: h.jmap)

        let delegated = try await h.owners.delegatedToken(grant: grant, actors: [agent], resource: h.mcp)
        let session = try await h.mcpSession(bearer(delegated))
        let sent = try await h.callTool(
            "send_email", ["to": h.bob.address, "subject": "s", "body": "b"], session: session, bearer(delegated))
        #expect(try OAuthMCPHarness.toolText(sent).isError == false, "\(sent.text)")
        let nested = try await h.owners.delegatedToken(grant: jmapGrant, actors: [subAgent, agent], resource: h.jmap)
        let submitted = try await h.jmap(
            OwnedInboxesFixture.sendCalls(from: h.ada.address, to: h.bob.address), token: nested,
            account: h.ada.accountID)
        #expect(submitted.status == 200)
        let ownSession = try await h.mcpSession(bearer(own))
        _ = try await h.callTool(
            "send_email", ["to": h.bob.address, "subject": "s", "body": "b"], session: ownSession, bearer(own))
        _ = try await h.jmap(
            OwnedInboxesFixture.sendCalls(from: h.ada.address, to: h.bob.address), token: ownJMAP,
            account: h.ada.accountID)

        let seen = outcomes.withLock { $0 }
        try #require(seen.count == 4)
        #expect(seen.allSatisfy { $0.sender == h.ada.address && !$0.submissionID.isEmpty && $0.delivered == 1 })
        #expect(seen.map(\.delegation) == [
            Delegation(ownerID: h.owner, actorIDs: [agent]), Delegation(ownerID: h.owner, actorIDs: [subAgent, agent]),
            nil, nil,
        ])
    }

    @Test(
        "a delegated token narrowed to Ada's inbox opens Ada's at JMAP and MCP, never Bob's, though the owner holds both",
        arguments: StorageBackend.allCases)
    func narrowedReach(_ backend: StorageBackend) async throws {
        let h = try await OAuthMCPHarness.start(backend)
        defer { Task { await h.stop() } }
        let agent = try await h.owners.agentClient(inboxes: [h.ada.accountID])
        let (_, jmapGrant) = try h.token(resource: h.jmap)
        let jmapToken = try await h.owners.delegatedToken(grant: jmapGrant, actors: [agent], resource: h.jmap)
        let get: [[Any]] = [["Mailbox/get", [:], "m"]]
        #expect(try await h.jmap(get, token: jmapToken, account: h.ada.accountID).status == 200)
        let bob = try await h.jmap(get, token: jmapToken, account: h.bob.accountID)
        #expect(bob.status == 403)
        #expect(try bob.json()["error"] as? String == "access_denied")

        let (_, mcpGrant) = try h.token(resource: h.mcp)
        let mcpToken = try await h.owners.delegatedToken(grant: mcpGrant, actors: [agent], resource: h.mcp)
        let session = try await h.mcpSession(bearer(mcpToken))
        let agents = try OAuthMCPHarness.toolText(
            try await h.callTool("list_agents", [:], session: session, bearer(mcpToken)))
        #expect(agents.text.contains(h.ada.accountID) && !agents.text.contains(h.bob.accountID), "\(agents.text)")
        let picked = try OAuthMCPHarness.toolText(
            try await h.callTool("read_inbox", ["agent_id": h.bob.accountID], session: session, bearer(mcpToken)))
        #expect(picked.isError && picked.text.hasPrefix("access_denied"), "\(picked.text)")
        // Without agent_id, the only inbox it reaches is the one acted on.
        let inbox = try OAuthMCPHarness.toolText(
            try await h.callTool("read_inbox", [:], session: session, bearer(mcpToken)))
        #expect(!inbox.isError && inbox.text.contains(h.ada.address), "\(inbox.text)")
    }
}
