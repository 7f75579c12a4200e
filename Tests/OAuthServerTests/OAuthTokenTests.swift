import AuthCrypto
import HTTP1
import JSON
import JWT
import OAuthGrants
import PosternTestSupport
import ServerKit
import Testing

@testable import OAuthServer

@Suite("OAuth token endpoint: codes with PKCE, rotating refresh tokens")
struct OAuthTokenTests {
    /// A harness with a public client and an owner with an inbox.
    static func setUp(
        _ backend: StorageBackend
    ) async throws -> (OAuthHarness, client: String, owner: String, inbox: String) {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        return (harness, client.id, owner.id, owner.inbox)
    }

    @Test(
        "a code with its PKCE verifier buys an RFC 9068 EdDSA access token and a refresh token, no-store",
        arguments: StorageBackend.allCases)
    func exchange(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let response = await harness.exchange(
            issued.code, clientID: client, verifier: issued.verifier, extra: [("resource", jmapResource)])
        #expect(response.status == .ok)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        let body = try #require(OAuthHarness.json(response))
        #expect(body["token_type"]?.stringValue == "Bearer")
        #expect(body["expires_in"]?.intValue == 900)
        #expect(body["scope"]?.stringValue == "mail.read mail.send")
        let refresh = try #require(body["refresh_token"]?.stringValue)
        #expect(refresh.utf8.count == 43)
        let token = try #require(body["access_token"]?.stringValue)
        let header = try #require(try? JSONValue.parse(Base64URL.decode(String(token.split(separator: ".")[0]))!))
        #expect(header["typ"]?.stringValue == "at+jwt")
        #expect(header["alg"]?.stringValue == "EdDSA")
        let claims = try harness.keys.verify(
            token,
            policy: JWTPolicy(
                purpose: .oauthAccess, issuer: issuer, maximumLifetime: 900, audience: jmapResource,
                scope: "mail.read mail.send"),
            now: harness.clock.now)
        #expect(claims.sub == owner)
        #expect(claims["client_id"]?.stringValue == client)
        #expect(claims.exp == harness.clock.now + 900)
        let jti = try #require(claims.jti)
        #expect(try await harness.service.grants.accessTokenLive(jti: jti, now: harness.clock.now))
        try await harness.service.grants.revoke(grantID: issued.grant.id, now: harness.clock.now)
        #expect(try await !harness.service.grants.accessTokenLive(jti: jti, now: harness.clock.now))
    }

    @Test(
        "a used code presented again is invalid_grant and revokes the grant it issued",
        arguments: StorageBackend.allCases)
    func codeReplay(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let first = await harness.exchange(issued.code, clientID: client, verifier: issued.verifier)
        let refresh = try #require(OAuthHarness.json(first)?["refresh_token"]?.stringValue)
        let again = await harness.exchange(issued.code, clientID: client, verifier: issued.verifier)
        #expect(again.status == .badRequest)
        #expect(OAuthHarness.error(again) == "invalid_grant")
        #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == true)
        #expect(OAuthHarness.error(await harness.refresh(refresh, clientID: client)) == "invalid_grant")
    }

    @Test("a code lives 60 s: at 60 s it is invalid_grant", arguments: StorageBackend.allCases)
    func codeExpiry(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let late = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let inTime = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        harness.clock.advance(59)
        #expect(await harness.exchange(inTime.code, clientID: client, verifier: inTime.verifier).status == .ok)
        harness.clock.advance(1)
        let response = await harness.exchange(late.code, clientID: client, verifier: late.verifier)
        #expect(OAuthHarness.error(response) == "invalid_grant")
    }

    @Test("a code is bound to its verifier, redirect URI, client and resource", arguments: StorageBackend.allCases)
    func codeBindings(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let other = try await harness.registerClient()
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let wrongVerifier = await harness.exchange(
            issued.code, clientID: client, verifier: Base64URL.encode(SecureRandom.bytes(32)))
        #expect(OAuthHarness.error(wrongVerifier) == "invalid_grant")
        let wrongRedirect = await harness.send(
            .POST, "/oauth/token",
            form: [
                ("grant_type", "authorization_code"), ("code", issued.code), ("redirect_uri", callback + "/x"),
                ("client_id", client), ("code_verifier", issued.verifier),
            ])
        #expect(OAuthHarness.error(wrongRedirect) == "invalid_grant")
        let otherClient = await harness.exchange(issued.code, clientID: other.id, verifier: issued.verifier)
        #expect(OAuthHarness.error(otherClient) == "invalid_grant")
        let wrongResource = await harness.exchange(
            issued.code, clientID: client, verifier: issued.verifier, extra: [("resource", jmapResource + "/")])
        #expect(OAuthHarness.error(wrongResource) == "invalid_target")
        // None of those used the code.
        #expect(await harness.exchange(issued.code, clientID: client, verifier: issued.verifier).status == .ok)
    }

    @Test(
        "client errors: missing or unknown client_id, a wrong secret, a bad grant_type",
        arguments: StorageBackend.allCases)
    func clientErrors(_ backend: StorageBackend) async throws {
        let (harness, client, _, _) = try await Self.setUp(backend)
        let confidential = try await harness.registerClient(method: "client_secret_post")
        let secret = try #require(confidential.secret)
        let form: [(String, String)] = [("grant_type", "refresh_token"), ("refresh_token", "x")]
        #expect(OAuthHarness.error(await harness.send(.POST, "/oauth/token", form: form)) == "invalid_client")
        let unknown = await harness.send(.POST, "/oauth/token", form: form + [("client_id", "nobody")])
        #expect(unknown.status == .badRequest)
        #expect(OAuthHarness.error(unknown) == "invalid_client")
        let noSecret = await harness.send(.POST, "/oauth/token", form: form + [("client_id", confidential.id)])
        #expect(OAuthHarness.error(noSecret) == "invalid_client")
        let wrongSecret = await harness.send(
            .POST, "/oauth/token", form: form + [("client_id", confidential.id), ("client_secret", secret + "x")])
        #expect(OAuthHarness.error(wrongSecret) == "invalid_client")
        let rightSecret = await harness.send(
            .POST, "/oauth/token", form: form + [("client_id", confidential.id), ("client_secret", secret)])
        #expect(OAuthHarness.error(rightSecret) == "invalid_grant")
        let password = await harness.send(
            .POST, "/oauth/token", form: [("grant_type", "password"), ("client_id", client)])
        #expect(OAuthHarness.error(password) == "unsupported_grant_type")
        let none = await harness.send(.POST, "/oauth/token", form: [("client_id", client)])
        #expect(OAuthHarness.error(none) == "invalid_request")
        let json = await harness.send(.POST, "/oauth/token", json: #"{"grant_type":"refresh_token"}"#)
        #expect(OAuthHarness.error(json) == "invalid_request")
        #expect(json.headers["Cache-Control"] == "no-store")
    }

    @Test(
        "refresh rotates; a superseded token after 2 s whose successor was used is a reuse that revokes the grant",
        arguments: StorageBackend.allCases)
    func rotationAndReuse(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let t1 = try #require(
            OAuthHarness.json(await harness.exchange(issued.code, clientID: client, verifier: issued.verifier)))
        let r1 = try #require(t1["refresh_token"]?.stringValue)
        harness.clock.advance(10)
        let t2 = try #require(OAuthHarness.json(await harness.refresh(r1, clientID: client)))
        let r2 = try #require(t2["refresh_token"]?.stringValue)
        #expect(r2 != r1)
        #expect(t2["access_token"]?.stringValue != t1["access_token"]?.stringValue)
        let r3 = try OAuthHarness.refreshToken(await harness.refresh(r2, clientID: client))
        harness.clock.advance(2)
        let reuse = await harness.refresh(r1, clientID: client)
        #expect(OAuthHarness.error(reuse) == "invalid_grant")
        #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == true)
        #expect(OAuthHarness.error(await harness.refresh(r3, clientID: client)) == "invalid_grant")
    }

    @Test(
        "a refresh answered 503 whose rotation committed: its retry with the same token, the successor unused, is rotated again and nothing is revoked",
        arguments: StorageBackend.allCases)
    func retryAfterLostAnswer(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let r1 = try await harness.redeem(issued, clientID: client)
        // The rotation r1 -> r2 commits, but its answer never reaches the client (a 503 in doubt, a failover).
        let lost = try OAuthHarness.refreshToken(await harness.refresh(r1, clientID: client))
        harness.clock.advance(12)  // the commit timeout, and the client's retry
        let retried = try #require(OAuthHarness.json(await harness.refresh(r1, clientID: client)))
        let r3 = try #require(retried["refresh_token"]?.stringValue)
        #expect(r3 != lost && r3 != r1)
        #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == false)
        // Retried again (its answer lost too): still a retry, still nothing revoked.
        harness.clock.advance(3)
        let r4 = try OAuthHarness.refreshToken(await harness.refresh(r1, clientID: client))
        #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == false)
        // The client carries on with the last token it got; the unused ones it never saw are superseded.
        let r5 = try OAuthHarness.refreshToken(await harness.refresh(r4, clientID: client))
        #expect(await harness.refresh(r5, clientID: client).status == .ok)
        #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == false)
    }

    @Test(
        "a superseded token presented again while its successor is unused: within 2 s a lost race (nothing revoked, the winner's token works); at 60 s, past the retry window, a reuse that revokes the grant",
        arguments: StorageBackend.allCases, [Int64(1), 60])
    func supersededWhileSuccessorUnused(_ backend: StorageBackend, after seconds: Int64) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let r1 = try await harness.redeem(issued, clientID: client)
        let r2 = try OAuthHarness.refreshToken(await harness.refresh(r1, clientID: client))
        harness.clock.advance(seconds)
        #expect(OAuthHarness.error(await harness.refresh(r1, clientID: client)) == "invalid_grant")
        let revoked = seconds >= 60
        #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == revoked)
        let next = await harness.refresh(r2, clientID: client)
        #expect(revoked ? OAuthHarness.error(next) == "invalid_grant" : next.status == .ok)
    }

    @Test(
        "a request that saw the token current and lost the update lost a race, however late the winner committed",
        arguments: StorageBackend.allCases)
    func lateWinner(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let r1 = try await harness.redeem(issued, clientID: client)
        let grants = harness.service.grants
        guard case .ready(let grant) = try grants.checkRefresh(r1, clientID: client, now: harness.clock.now) else {
            Issue.record("r1 is not current")
            return
        }
        // This request read r1 as current at t; the winner, which started at t too, commits 5 s later.
        let r2 = try OAuthHarness.refreshToken(await harness.refresh(r1, clientID: client))
        let late = harness.clock.now + 5
        let mine = OAuthIssue(
            refreshToken: "late", refreshExpiresAt: late + 60, jti: "late-jti", accessExpiresAt: late + 60)
        let rotation = try await grants.rotate(
            r1, grant: grant, issue: mine, sawSuperseded: false, now: late, raceWindow: 2, retryWindow: 60)
        #expect(rotation == .lostRace)
        #expect(try await grants.grant(id: issued.grant.id)?.revoked == false)
        #expect(await harness.refresh(r2, clientID: client).status == .ok)
    }

    @Test(
        "a client registered without the refresh_token grant gets no refresh token; a refresh is unauthorized_client",
        arguments: StorageBackend.allCases)
    func noRefreshGrant(_ backend: StorageBackend) async throws {
        let (harness, _, owner, inbox) = try await Self.setUp(backend)
        let registered = await harness.send(
            .POST, "/oauth/register",
            json: #"{"redirect_uris":["\#(callback)"],"grant_types":["authorization_code"]}"#)
        let client = try #require(OAuthHarness.json(registered)?["client_id"]?.stringValue)
        #expect(OAuthHarness.json(registered)?["grant_types"] == .array(["authorization_code"]))
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let tokens = try #require(
            OAuthHarness.json(await harness.exchange(issued.code, clientID: client, verifier: issued.verifier)))
        #expect(tokens["access_token"]?.stringValue != nil && tokens["refresh_token"] == nil)
        #expect(OAuthHarness.error(await harness.refresh("anything", clientID: client)) == "unauthorized_client")
    }

    @Test(
        "two concurrent refreshes with one token, on two database handles: exactly one wins, nothing revoked",
        arguments: StorageBackend.allCases)
    func concurrentRefresh(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        // A second instance: its own service over its own handle on the same database.
        let second = try OAuthHarness.service(
            try harness.test.another(), keys: harness.keys, owners: harness.owners, inboxes: harness.inboxes,
            pool: harness.pool, clock: harness.clock)
        var secondRouter = ContextRouter()
        second.register(into: &secondRouter)
        for _ in 0..<5 {
            let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
            let r1 = try await harness.redeem(issued, clientID: client)
            async let a = harness.refresh(r1, clientID: client)
            async let b = harness.refresh(r1, clientID: client, through: secondRouter)
            let results = await [a, b]
            #expect(results.filter { $0.status == .ok }.count == 1)
            #expect(results.compactMap(OAuthHarness.error) == ["invalid_grant"])
            #expect(try await harness.service.grants.grant(id: issued.grant.id)?.revoked == false)
            let winner = try #require(results.first { $0.status == .ok }.flatMap(OAuthHarness.json))
            let next = try #require(winner["refresh_token"]?.stringValue)
            #expect(await harness.refresh(next, clientID: client).status == .ok)
        }
    }

    @Test(
        "refresh takes a narrower scope and the grant's resource; wider is invalid_scope, another resource invalid_target",
        arguments: StorageBackend.allCases)
    func refreshScopeAndResource(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox, scopes: ["mail.read"])
        var refresh = try await harness.redeem(issued, clientID: client)
        let wider = await harness.refresh(refresh, clientID: client, extra: [("scope", "mail.read mail.send")])
        #expect(OAuthHarness.error(wider) == "invalid_scope")
        let unknown = await harness.refresh(refresh, clientID: client, extra: [("scope", "openid")])
        #expect(OAuthHarness.error(unknown) == "invalid_scope")
        let target = await harness.refresh(refresh, clientID: client, extra: [("resource", issuer + "/mcp")])
        #expect(OAuthHarness.error(target) == "invalid_target")
        let same = try #require(
            OAuthHarness.json(
                await harness.refresh(
                    refresh, clientID: client, extra: [("scope", "mail.read"), ("resource", jmapResource)])))
        #expect(same["scope"]?.stringValue == "mail.read")
        refresh = try #require(same["refresh_token"]?.stringValue)
        let other = try await harness.registerClient()
        #expect(OAuthHarness.error(await harness.refresh(refresh, clientID: other.id)) == "invalid_grant")
    }

    @Test(
        "refresh tokens slide 90 days from each rotation, capped 365 days after consent",
        arguments: StorageBackend.allCases)
    func lifetimes(_ backend: StorageBackend) async throws {
        let (harness, client, owner, inbox) = try await Self.setUp(backend)
        let issued = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        var refresh = try await harness.redeem(issued, clientID: client)
        // Every 89 days a rotation: alive past 90 days from consent, until the 365-day cap.
        for _ in 0..<4 {
            harness.clock.advance(89 * 86_400)
            let body = try #require(OAuthHarness.json(await harness.refresh(refresh, clientID: client)))
            refresh = try #require(body["refresh_token"]?.stringValue)
        }
        harness.clock.advance(365 * 86_400 - 4 * 89 * 86_400 - 1)
        let last = try #require(OAuthHarness.json(await harness.refresh(refresh, clientID: client)))
        #expect(last["expires_in"]?.intValue == 1)
        refresh = try #require(last["refresh_token"]?.stringValue)
        harness.clock.advance(1)
        #expect(OAuthHarness.error(await harness.refresh(refresh, clientID: client)) == "invalid_grant")
        // A token unused for 90 days has expired.
        let idle = try await harness.code(clientID: client, ownerID: owner, agentID: inbox)
        let idleRefresh = try await harness.redeem(idle, clientID: client)
        harness.clock.advance(90 * 86_400)
        #expect(OAuthHarness.error(await harness.refresh(idleRefresh, clientID: client)) == "invalid_grant")
    }
}
