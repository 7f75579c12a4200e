import Foundation
import PosternTestSupport
import Testing

/// JMAP with an owner's access token (`api-docs/oauth-mcp-contract.md` 1.10, 1.13): the resource side's rows of the
/// error table, and the capability path unchanged. The JMAP service behind the resource side as the server composes
/// it (``OAuthJMAPHarness``).
@Suite("JMAP with OAuth access tokens and X-Atomic-Account-Id")
struct OAuthJMAPTests {
    func responses(_ response: TestResponse) throws -> [[Any]] {
        try #require(try response.json()["methodResponses"] as? [[Any]], "\(response.text)")
    }

    @Test(
        "the token opens the inbox the header names, at /jmap, /jmap/api and the session; accountId defaults to it",
        arguments: StorageBackend.allCases)
    func opens(_ backend: StorageBackend) async throws {
        let h = try await OAuthJMAPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (token, _) = try h.token(resource: h.jmap)
        for path in ["/jmap", "/jmap/api"] {
            let response = try await h.jmap(
                [["Mailbox/get", [:], "m"]], token: token, account: h.bob.accountID, path: path)
            #expect(response.status == 200, "\(response.text)")
            let first = try responses(response)[0]
            #expect(first[0] as? String == "Mailbox/get")
            #expect((first[1] as? [String: Any])?["accountId"] as? String == h.bob.accountID)
        }
        // A body accountId of another inbox, even one the owner holds, cannot redirect the request.
        let redirected = try await h.jmap(
            [["Mailbox/get", ["accountId": h.ada.accountID], "m"]], token: token, account: h.bob.accountID)
        let error = try responses(redirected)[0]
        #expect(error[0] as? String == "error" && (error[1] as? [String: Any])?["type"] as? String == "accountNotFound")
        let session = try await h.client.request(
            "GET", "/.well-known/jmap",
            headers: [("Authorization", "Bearer " + token), ("X-Atomic-Account-Id", h.ada.accountID.uppercased())])
        #expect(session.status == 200, "\(session.text)")
        let accounts = try #require(try session.json()["accounts"] as? [String: Any])
        #expect(Array(accounts.keys) == [h.ada.accountID])
    }

    @Test(
        "400 in the agent error shape when X-Atomic-Account-Id is missing or not a UUID",
        arguments: StorageBackend.allCases)
    func accountHeader(_ backend: StorageBackend) async throws {
        let h = try await OAuthJMAPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (token, _) = try h.token(resource: h.jmap)
        for account in [nil, "ada", h.ada.address, h.ada.accountID + "0"] {
            let response = try await h.jmap([["Mailbox/get", [:], "m"]], token: token, account: account)
            #expect(response.status == 400, "\(response.text)")
            let error = try #require(try response.json()["error"] as? [String: Any])
            #expect(error["message"] as? String == "X-Atomic-Account-Id is missing or not a UUID")
            #expect((error["hint"] as? String)?.contains("/api/v1/agents") == true)
            #expect(error["docs_url"] as? String == h.base + "/llms.txt#using-an-oauth-access-token")
        }
    }

    @Test(
        "403 access_denied for another owner's inbox, and for a token bound to another inbox",
        arguments: StorageBackend.allCases)
    func accessDenied(_ backend: StorageBackend) async throws {
        let h = try await OAuthJMAPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (token, _) = try h.token(resource: h.jmap)
        let other = try await h.jmap([["Mailbox/get", [:], "m"]], token: token, account: h.eve.accountID)
        #expect(other.status == 403)
        #expect(try other.json()["error"] as? String == "access_denied")
        let (bound, _) = try h.token(resource: "urn:atomicmail:agent:" + h.ada.accountID)
        #expect(try await h.jmap([["Mailbox/get", [:], "m"]], token: bound, account: h.ada.accountID).status == 200)
        let elsewhere = try await h.jmap([["Mailbox/get", [:], "m"]], token: bound, account: h.bob.accountID)
        #expect(elsewhere.status == 403)
        #expect(try elsewhere.json()["error"] as? String == "access_denied")
    }

    @Test(
        "a grant bound to one inbox at consent opens only it through JMAP; the owner's grant opens each inbox held",
        arguments: StorageBackend.allCases)
    func inboxOnly(_ backend: StorageBackend) async throws {
        let h = try await OAuthJMAPHarness.start(backend)
        defer { Task { await h.stop() } }
        let read: [[Any]] = [["Mailbox/get", [:], "m"]]
        let (bound, _) = try h.token(resource: h.jmap, defaultInbox: h.bob.accountID, inboxOnly: h.bob.accountID)
        #expect(try await h.jmap(read, token: bound, account: h.bob.accountID).status == 200)
        let other = try await h.jmap(read, token: bound, account: h.ada.accountID)
        #expect(other.status == 403)
        #expect(try other.json()["error"] as? String == "access_denied")
        let session = try await h.client.request(
            "GET", "/.well-known/jmap",
            headers: [("Authorization", "Bearer " + bound), ("X-Atomic-Account-Id", h.ada.accountID)])
        #expect(session.status == 403)
        let agents = try await h.client.request(
            "GET", "/api/v1/agents", headers: [("Authorization", "Bearer " + bound)])
        let listed = try #require(try agents.json()["agents"] as? [[String: Any]], "\(agents.text)")
        #expect(listed.compactMap { $0["accountId"] as? String } == [h.bob.accountID])

        let (owners, _) = try h.token(resource: h.jmap, defaultInbox: h.bob.accountID)
        for inbox in [h.ada, h.bob] {
            #expect(try await h.jmap(read, token: owners, account: inbox.accountID).status == 200)
        }
    }

    @Test(
        "401 invalid_token with WWW-Authenticate: an /mcp token, a revoked grant; the capability path unchanged",
        arguments: StorageBackend.allCases)
    func invalidToken(_ backend: StorageBackend) async throws {
        let h = try await OAuthJMAPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (mcpToken, _) = try h.token(resource: h.mcp)
        let (token, grant) = try h.token(resource: h.jmap)
        #expect(try await h.jmap([["Mailbox/get", [:], "m"]], token: token, account: h.ada.accountID).status == 200)
        try await h.revoke(grant)
        for refused in [mcpToken, token] {
            let response = try await h.jmap([["Mailbox/get", [:], "m"]], token: refused, account: h.ada.accountID)
            #expect(response.status == 401)
            #expect(try response.json()["error"] as? String == "invalid_token")
            #expect(response.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
        }
        let capability = try await h.jmap([["Mailbox/get", [:], "m"]], token: "not.a.token", account: nil)
        #expect(capability.status == 401 && capability.header("Content-Type") == "application/problem+json")
    }

    @Test(
        "403 insufficient_scope: mail.read cannot submit; mail.send cannot read, nor create outside Drafts",
        arguments: StorageBackend.allCases)
    func scopes(_ backend: StorageBackend) async throws {
        let h = try await OAuthJMAPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (reader, _) = try h.token(resource: h.jmap, scope: "mail.read")
        let send = OwnedInboxesFixture.sendCalls(from: h.ada.address, to: h.bob.address)
        let refused = try await h.jmap(send, token: reader, account: h.ada.accountID)
        #expect(refused.status == 403)
        #expect(try refused.json()["error"] as? String == "insufficient_scope")
        #expect(refused.header("WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="mail.send""#)
        let drafts = try await h.jmap(
            [["Email/query", ["filter": ["inMailbox": "drafts"]], "q"]], token: reader, account: h.ada.accountID)
        #expect(((try responses(drafts)[0][1] as? [String: Any])?["ids"] as? [Any])?.isEmpty == true)

        let (sender, _) = try h.token(resource: h.jmap, scope: "mail.send")
        let reading = try await h.jmap([["Email/query", [:], "q"]], token: sender, account: h.ada.accountID)
        #expect(reading.status == 403)
        #expect(reading.header("WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="mail.read""#)
        let destroying = try await h.jmap(
            [["Email/set", ["destroy": ["x"]], "d"]], token: sender, account: h.ada.accountID)
        #expect(destroying.status == 403)
        // A mail.send grant composes in Drafts only: a message created in the inbox would look received.
        let planted = try await h.jmap(
            [[
                "Email/set",
                [
                    "create": [
                        "p": ["mailboxIds": ["inbox": true], "from": [["email": "bank@example.com"]], "subject": "Urgent"]
                    ]
                ],
                "p",
            ]], token: sender, account: h.ada.accountID)
        #expect(planted.status == 403)
        #expect(planted.header("WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="mail.read""#)
        // Nor through a result reference the scope check cannot see into: Core/echo hands Email/set its `#create`.
        let echoed = try await h.jmap(
            [
                ["Core/echo", ["x": ["p": ["mailboxIds": ["inbox": true], "subject": "Urgent"]]], "e"],
                ["Email/set", ["#create": ["resultOf": "e", "name": "Core/echo", "path": "/x"]], "p"],
            ], token: sender, account: h.ada.accountID)
        #expect(echoed.status == 403)
        let (both, _) = try h.token(resource: h.jmap)
        let inbox = try await h.jmap([["Email/query", [:], "q"]], token: both, account: h.ada.accountID)
        #expect(((try responses(inbox)[0][1] as? [String: Any])?["ids"] as? [Any])?.isEmpty == true)
        let sent = try await h.jmap(
            [["Identity/get", [:], "i"]] + send, token: sender, account: h.ada.accountID)
        #expect(sent.status == 200, "\(sent.text)")
        let submission = try responses(sent).first { $0[2] as? String == "s" }
        #expect((submission?[1] as? [String: Any])?["created"] != nil, "\(sent.text)")
    }

    @Test(
        "mail.send alone: a submission's implicit Email/set only drops $draft, marks $sent, keeps the copy in Sent",
        arguments: StorageBackend.allCases)
    func submissionImplicitSet(_ backend: StorageBackend) async throws {
        let h = try await OAuthJMAPHarness.start(backend)
        defer { Task { await h.stop() } }
        let (sender, _) = try h.token(resource: h.jmap, scope: "mail.send")
        let (both, _) = try h.token(resource: h.jmap)
        let outcomes = SubmissionOutcomes(owners: h.owners) { calls, token in
            try responses(try await h.jmap(calls, token: token, account: h.ada.accountID))
        }
        let refusals: [[String: Any]] = [
            ["onSuccessUpdateEmail": ["#s": ["keywords/$seen": true]]],
            ["onSuccessUpdateEmail": ["#s": ["keywords": ["$seen": true]]]],
            ["onSuccessUpdateEmail": ["#s": ["mailboxIds": ["inbox": true], "keywords/$draft": NSNull()]]],
            ["onSuccessUpdateEmail": ["#s": ["mailboxIds/inbox": true, "mailboxIds/sent": NSNull()]]],
            ["onSuccessUpdateEmail": ["#s": ["mailboxIds": ["sent": true, "inbox": true]]]],
            // Through a result reference the scope check cannot see into.
            ["#onSuccessUpdateEmail": ["resultOf": "e", "name": "Core/echo", "path": "/x"]],
        ]
        for submission in refusals {
            let outcome = try await outcomes.send(submission, token: sender)
            #expect(outcome.error(in: "notUpdated") == "forbidden", "\(submission): \(outcome.implicit)")
            #expect(outcome.updated.isEmpty)
            let email = try await outcomes.email(outcome.id, token: both)
            #expect(email.mailboxes == ["sent"] && email.keywords == ["$draft"], "\(submission): \(email)")
        }
        let destroyed = try await outcomes.send(["onSuccessDestroyEmail": ["#s"]], token: sender)
        #expect(destroyed.error(in: "notDestroyed") == "forbidden", "\(destroyed.implicit)")
        #expect(try await outcomes.email(destroyed.id, token: both).mailboxes == ["sent"])

        let finishing: [[String: Any]] = [
            ["onSuccessUpdateEmail": ["#s": ["keywords/$draft": NSNull(), "mailboxIds": ["sent": true]]]],
            [
                "onSuccessUpdateEmail": [
                    "#s": ["mailboxIds/drafts": NSNull(), "mailboxIds/sent": true, "keywords/$draft": NSNull()]
                ]
            ],
            ["onSuccessUpdateEmail": ["#s": ["keywords": [:] as [String: Bool]]]],
        ]
        for submission in finishing {
            let outcome = try await outcomes.send(submission, token: sender)
            #expect(outcome.updated == [outcome.id], "\(submission): \(outcome.implicit)")
            let email = try await outcomes.email(outcome.id, token: both)
            #expect(email.mailboxes == ["sent"] && email.keywords.isEmpty, "\(submission): \(email)")
        }
        // Atomic's own send preset marks the copy $sent as it drops $draft.
        let preset = try await outcomes.send(
            ["onSuccessUpdateEmail": ["#s": ["keywords/$draft": NSNull(), "keywords/$sent": true]]], token: sender)
        #expect(preset.updated == [preset.id], "\(preset.implicit)")
        #expect(try await outcomes.email(preset.id, token: both).keywords == ["$sent"])

        // With mail.read as well, the implicit Email/set is an Email/set like any other.
        let moved = try await outcomes.send(
            ["onSuccessUpdateEmail": ["#s": ["keywords/$seen": true, "mailboxIds": ["inbox": true]]]], token: both)
        #expect(moved.updated == [moved.id], "\(moved.implicit)")
        let email = try await outcomes.email(moved.id, token: both)
        #expect(email.mailboxes == ["inbox"] && email.keywords == ["$draft", "$seen"])
        let erased = try await outcomes.send(["onSuccessDestroyEmail": ["#s"]], token: both)
        #expect(erased.implicit["destroyed"] as? [String] == [erased.id], "\(erased.implicit)")
    }
}
