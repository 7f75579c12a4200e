import Directory
import HTTP1
import JSON
import OAuthGrants
import OAuthResource
import OAuthServer
import PosternTestSupport
import Testing

/// A relying party the operator let reach the owner's mail (`--mail-access`, migration 0079): its sign-in that asks for
/// `mail.read` gets an access token the mail doors take, through the very check IMAP's and submission's `XOAUTH2`
/// make (``OAuthAccessVerifier`` for `/jmap` or an inbox), with a refresh token; a plain relying party's token is
/// refused there.
@Suite("OpenID relying parties with mail access: the mail doors' check, refresh, revocation", .timeLimit(.minutes(1)))
struct OIDCMailAccessTests {
    /// The mail doors' check of an access token (MailSignIn asks the verifier for these resources), with a cache of
    /// live grants observing `cache`'s revocations when given.
    static func mailDoor(_ fixture: RelyingPartyFixture, cache: OAuthGrantCache? = nil) -> OAuthAccessVerifier {
        let harness = fixture.harness
        return OAuthAccessVerifier(
            configuration: OAuthResourceConfiguration(issuer: issuer, baseURL: issuer), keys: harness.keys,
            grants: OAuthGrantStore(database: harness.test.database, observer: cache), cache: cache,
            clock: { harness.clock.now })
    }

    /// Signs in, consents to `scope`, redeems the code: the token answer.
    static func signIn(_ fixture: RelyingPartyFixture, scope: String) async throws -> JSONValue {
        try await fixture.harness.signIn()
        let back = try await fixture.approve(await fixture.authorize(scope: scope))
        let code = try #require(OAuthHarness.location(back)["code"], "\(back.status)")
        let answer = await fixture.token(code)
        #expect(answer.status == .ok)
        return try #require(OAuthHarness.json(answer))
    }

    /// `grant_type=refresh_token` with the client's Basic authentication.
    static func refresh(_ fixture: RelyingPartyFixture, _ token: String) async -> HTTPResponse {
        await fixture.harness.send(
            .POST, "/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", token)],
            headers: [fixture.basic])
    }

    static func userinfo(_ fixture: RelyingPartyFixture, _ token: String) async -> HTTPResponse {
        await fixture.harness.send(.GET, "/oauth/userinfo", headers: [("Authorization", "Bearer " + token)])
    }

    @Test("without mail access: mail.read is invalid_scope, and the userinfo token is refused by the mail doors")
    func withoutMailAccess() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite)
        let asked = await fixture.authorize(scope: "openid email mail.read")
        #expect(OAuthHarness.location(asked)["error"] == "invalid_scope")
        #expect(OAuthHarness.location(asked)["state"] == "st-1")
        let body = try await Self.signIn(fixture, scope: "openid email")
        let access = try #require(body["access_token"]?.stringValue)
        #expect(body["refresh_token"] == nil)
        #expect(await Self.userinfo(fixture, access).status == .ok)
        await #expect(throws: AuthenticationRefusal.self) {
            try await Self.mailDoor(fixture).grant(for: access, resources: [.jmap, .anyAgent])
        }
        // A refresh is still refused to a relying party without mail access.
        let refused = await Self.refresh(fixture, "anything")
        #expect(OAuthHarness.error(refused) == "unauthorized_client")
    }

    @Test(
        "with mail access: a token the mail doors take (mail.read, the owner), which opens userinfo too",
        arguments: StorageBackend.allCases)
    func withMailAccess(backend: StorageBackend) async throws {
        let fixture = try await RelyingPartyFixture(backend, mailAccess: .read)
        let asked = await fixture.authorize(scope: "openid mail.read mail.send")
        #expect(OAuthHarness.location(asked)["error"] == "invalid_scope", "mail.send was not allowed")
        let body = try await Self.signIn(fixture, scope: "openid email mail.read")
        #expect(body["scope"]?.stringValue == "openid email mail.read")
        let access = try #require(body["access_token"]?.stringValue)
        #expect(body["refresh_token"]?.stringValue != nil)
        let grant = try await Self.mailDoor(fixture).grant(for: access, resources: [.jmap, .anyAgent])
        #expect(grant.ownerID == fixture.ownerID)
        #expect(grant.clientID == fixture.clientID)
        #expect(grant.permissions == .read)
        #expect(!grant.permissions.contains(.send), "the submission door needs mail.send")
        let info = await Self.userinfo(fixture, access)
        #expect(info.status == .ok)
        #expect(OAuthHarness.json(info)?["email"]?.stringValue == "owner@example.com")
        // The token is for the mail resource: a route serving only /mcp refuses it.
        await #expect(throws: AuthenticationRefusal.self) {
            try await Self.mailDoor(fixture).grant(for: access, resources: [.mcp])
        }
    }

    @Test(
        "refresh rotates; a superseded token within the race window revokes nothing, later it revokes the grant",
        arguments: StorageBackend.allCases)
    func refreshRotation(backend: StorageBackend) async throws {
        let fixture = try await RelyingPartyFixture(backend, mailAccess: [.read, .send])
        let body = try await Self.signIn(fixture, scope: "openid email mail.read mail.send")
        let first = try #require(body["refresh_token"]?.stringValue)
        fixture.harness.clock.advance(60)
        let rotated = await Self.refresh(fixture, first)
        #expect(rotated.status == .ok)
        let renewed = try #require(OAuthHarness.json(rotated))
        let access = try #require(renewed["access_token"]?.stringValue)
        let second = try #require(renewed["refresh_token"]?.stringValue)
        #expect(second != first)
        #expect(renewed["id_token"] == nil)
        let door = Self.mailDoor(fixture)
        #expect(try await door.grant(for: access, resources: [.jmap, .anyAgent]).permissions == [.read, .send])
        #expect(await Self.userinfo(fixture, access).status == .ok)
        // Two of the app's requests in flight with one token: the late one lost a race, nothing is revoked.
        #expect(OAuthHarness.error(await Self.refresh(fixture, first)) == "invalid_grant")
        #expect(try await door.grant(for: access, resources: [.jmap]).ownerID == fixture.ownerID)
        // Presented again past the race window: a reuse, which revokes the grant and every token of it.
        fixture.harness.clock.advance(30)
        #expect(OAuthHarness.error(await Self.refresh(fixture, first)) == "invalid_grant")
        await #expect(throws: AuthenticationRefusal.self) {
            try await door.grant(for: access, resources: [.jmap, .anyAgent])
        }
        #expect(await Self.userinfo(fixture, access).status == .unauthorized)
        #expect(OAuthHarness.error(await Self.refresh(fixture, second)) == "invalid_grant")
    }

    @Test("revoking the consent refuses the token at the mail doors at once (the cache of live grants is told)",
        arguments: StorageBackend.allCases)
    func revocation(backend: StorageBackend) async throws {
        let fixture = try await RelyingPartyFixture(backend, mailAccess: .read)
        let body = try await Self.signIn(fixture, scope: "openid mail.read")
        let access = try #require(body["access_token"]?.stringValue)
        let refresh = try #require(body["refresh_token"]?.stringValue)
        let cache = OAuthGrantCache()
        let door = Self.mailDoor(fixture, cache: cache)
        #expect(try await door.grant(for: access, resources: [.jmap, .anyAgent]).ownerID == fixture.ownerID)
        let signIns = OAuthGrantStore(database: fixture.harness.test.database, observer: cache).openIDSignIns
        #expect(
            try await signIns.revokeConsent(
                ownerID: fixture.ownerID, clientID: fixture.clientID, now: fixture.harness.clock.now))
        await #expect(throws: AuthenticationRefusal.self) {
            try await door.grant(for: access, resources: [.jmap, .anyAgent])
        }
        #expect(OAuthHarness.error(await Self.refresh(fixture, refresh)) == "invalid_grant")
        #expect(await Self.userinfo(fixture, access).status == .unauthorized)
    }

    @Test("a replayed code revokes the mail grant its first use made")
    func replayedCode() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite, mailAccess: .read)
        try await fixture.harness.signIn()
        let back = try await fixture.approve(await fixture.authorize(scope: "openid mail.read"))
        let code = try #require(OAuthHarness.location(back)["code"])
        let body = try #require(OAuthHarness.json(await fixture.token(code)))
        let access = try #require(body["access_token"]?.stringValue)
        #expect(try await Self.mailDoor(fixture).grant(for: access, resources: [.jmap]).permissions == .read)
        #expect(OAuthHarness.error(await fixture.token(code)) == "invalid_grant")
        await #expect(throws: AuthenticationRefusal.self) {
            try await Self.mailDoor(fixture).grant(for: access, resources: [.jmap])
        }
        let refresh = try #require(body["refresh_token"]?.stringValue)
        #expect(OAuthHarness.error(await Self.refresh(fixture, refresh)) == "invalid_grant")
    }

    @Test(
        "pairwise with mail access and claims: the mail doors read the owner's id, userinfo the pairwise sub and the claim asked for, after a refresh too",
        arguments: StorageBackend.allCases)
    func pairwiseClaimsWithMail(backend: StorageBackend) async throws {
        let fixture = try await RelyingPartyFixture(
            backend, subjectType: .pairwise(sector: "rp.example"), mailAccess: .read)
        try await fixture.harness.signIn()
        let asked = await fixture.authorize([("claims", #"{"userinfo":{"name":null}}"#)], scope: "openid mail.read")
        let back = try await fixture.approve(asked)
        let code = try #require(OAuthHarness.location(back)["code"], "\(back.status)")
        let body = try #require(OAuthHarness.json(await fixture.token(code)))
        let idToken = try #require(body["id_token"]?.stringValue)
        let subject = try #require(try fixture.verified(idToken).sub)
        #expect(subject != fixture.ownerID)
        let access = try #require(body["access_token"]?.stringValue)
        let grant = try await Self.mailDoor(fixture).grant(for: access, resources: [.jmap, .anyAgent])
        #expect(grant.ownerID == fixture.ownerID)
        let expected = JSONValue.object([("sub", .string(subject)), ("name", .string("owner@example.com"))])
        #expect(OAuthHarness.json(await Self.userinfo(fixture, access)) == expected)
        let refresh = try #require(body["refresh_token"]?.stringValue)
        // The first access token expires and the sweep deletes its row: the grant still knows the claims asked for.
        let lifetime = try #require(body["expires_in"]?.intValue)
        fixture.harness.clock.advance(lifetime + 1)
        let now = fixture.harness.clock.now
        #expect(try await fixture.harness.test.database.write { try OAuthPurge.run($0, now: now) } >= 1)
        let next = try #require(OAuthHarness.json(await Self.refresh(fixture, refresh))?["access_token"]?.stringValue)
        #expect(next != access)
        #expect(OAuthHarness.json(await Self.userinfo(fixture, next)) == expected)
    }
}
