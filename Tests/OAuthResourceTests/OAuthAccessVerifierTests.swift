import AuthCrypto
import Directory
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import OAuthGrants
@testable import OAuthResource

@Suite("OAuth access tokens at the resource side: verified, tied to a live grant, refused at once when revoked")
struct OAuthAccessVerifierTests {
    func refused(
        _ fixture: OAuthVerifierFixture, _ token: String, _ resources: Set<AccessGrant.Resource> = [.jmap],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: AuthenticationRefusal.self, sourceLocation: sourceLocation) {
            _ = try await fixture.verifier.grant(for: token, resources: resources)
        }
        #expect(error?.kind == .invalidToken && error?.status == 401, sourceLocation: sourceLocation)
    }

    @Test(
        "a token of a live grant opens it: owner, client, resource, scopes and default inbox",
        arguments: StorageBackend.allCases)
    func valid(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let issued = try fixture.issue(audience: OAuthVerifierFixture.mcp, scope: "mail.read")
        let grant = try await fixture.verifier.grant(for: issued.token, resources: [.mcp])
        #expect(
            grant
                == AccessGrant(
                    ownerID: issued.owner, grantID: issued.grant, clientID: issued.client, resource: .mcp,
                    permissions: .read, defaultInboxID: nil, tokenID: issued.jti))
        #expect(try fixture.counted("valid") == 1)
    }

    @Test("revoking the grant refuses its tokens at once, cached or not", arguments: StorageBackend.allCases)
    func revocation(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let issued = try fixture.issue()
        _ = try await fixture.verifier.grant(for: issued.token, resources: [.jmap])
        #expect(fixture.cache.count == 1)
        try await fixture.rows.revoke(issued.grant, at: fixture.clock.now)
        // The revocation path invalidates this instance's cache (on PostgreSQL, through `postern_grants`).
        fixture.cache.invalidate(grantID: issued.grant)
        await refused(fixture, issued.token)
        #expect(try fixture.counted("revoked") == 1)

        let uncached = try OAuthVerifierFixture(backend, cacheGrants: false)
        let other = try uncached.issue()
        _ = try await uncached.verifier.grant(for: other.token, resources: [.jmap])
        try await uncached.rows.revoke(other.grant, at: uncached.clock.now)
        await #expect(throws: AuthenticationRefusal.self) {
            _ = try await uncached.verifier.grant(for: other.token, resources: [.jmap])
        }
        #expect(uncached.cache.count == 0)
    }

    @Test("a read that began before an invalidation does not bring the revoked grant back into the cache")
    func invalidationRace() async throws {
        let cache = OAuthGrantCache()
        let record = OAuthGrantRecord(
            grantID: "g-1", ownerID: "o", clientID: "c", agentID: nil, boundAccountID: nil, permissions: .read,
            resource: "r",
            grantExpiresAt: 2_000_000_000, tokenExpiresAt: 2_000_000_000, revoked: false)
        let before = cache.generation()
        cache.invalidate(grantID: "g-1")  // the revocation lands while the read is in flight
        cache.store(record, jti: "j-1", since: before, now: 1_800_000_000)
        #expect(cache.record(jti: "j-1", now: 1_800_000_000) == nil)
        cache.store(record, jti: "j-1", since: cache.generation(), now: 1_800_000_000)
        #expect(cache.record(jti: "j-1", now: 1_800_000_000) == record)
        cache.invalidate(grantID: "another")
        #expect(cache.record(jti: "j-1", now: 1_800_000_000) == record)
        cache.invalidate(grantID: "g-1")
        #expect(cache.record(jti: "j-1", now: 1_800_000_000) == nil && cache.count == 0)
    }

    @Test("a full cache drops the grants no longer live, then every grant; invalidations still reach what it keeps")
    func fullCache() {
        let cache = OAuthGrantCache(capacity: 2)
        func keep(_ jti: String, of grantID: String, until: Int64, at now: Int64) {
            let kept = OAuthGrantRecord(
                grantID: grantID, ownerID: "o", clientID: "c", agentID: nil, boundAccountID: nil, permissions: .read,
                resource: "r", grantExpiresAt: until, tokenExpiresAt: until, revoked: false)
            cache.store(kept, jti: jti, since: cache.generation(), now: now)
        }
        keep("j-old", of: "g-old", until: 100, at: 50)
        keep("j-1", of: "g-1", until: 500, at: 50)
        // Full at 200: the expired grant goes, the live one stays, and its invalidation still reaches it.
        keep("j-2", of: "g-2", until: 500, at: 200)
        #expect(cache.count == 2 && cache.record(jti: "j-1", now: 200) != nil)
        cache.invalidate(grantID: "g-1")
        #expect(cache.count == 1 && cache.record(jti: "j-1", now: 200) == nil)
        // Full of live grants: every one goes before the new one is kept, which its grant's invalidation reaches.
        keep("j-3", of: "g-3", until: 500, at: 200)
        keep("j-4", of: "g-4", until: 500, at: 200)
        #expect(cache.count == 1 && cache.record(jti: "j-4", now: 200) != nil)
        cache.invalidate(grantID: "g-4")
        #expect(cache.count == 0)
    }

    @Test(
        "an expired token is refused past the 30 s leeway, and a grant past its chain's end at once",
        arguments: StorageBackend.allCases)
    func expired(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let issued = try fixture.issue()
        fixture.clock.advance(900 + 31)
        await refused(fixture, issued.token)
        #expect(try fixture.counted("expired") == 1)

        let owner = try fixture.rows.owner()
        let client = try fixture.rows.client()
        let ended = try fixture.rows.grant(
            owner: owner, client: client, scope: "mail.read", resource: OAuthVerifierFixture.jmap,
            expiresAt: fixture.clock.now)
        try fixture.rows.token(jti: "jti-ended", grant: ended, expiresAt: fixture.clock.now + 900)
        let token = try fixture.keys.sign(
            fixture.claims(
                owner: owner, client: client, audience: OAuthVerifierFixture.jmap, scope: "mail.read", jti: "jti-ended"),
            for: .oauthAccess)
        await refused(fixture, token)
        #expect(try fixture.counted("revoked") == 1)
    }

    @Test(
        "a token for another audience is refused: /mcp at JMAP, /jmap at MCP, an unknown resource anywhere",
        arguments: StorageBackend.allCases)
    func wrongAudience(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        await refused(fixture, try fixture.issue(audience: OAuthVerifierFixture.mcp).token, [.jmap, .anyAgent])
        await refused(fixture, try fixture.issue(audience: OAuthVerifierFixture.jmap).token, [.mcp])
        await refused(
            fixture, try fixture.issue(audience: "https://elsewhere.example/jmap").token, [.jmap, .mcp, .anyAgent])
        await refused(fixture, try fixture.issue(audience: OAuthVerifierFixture.jmap + "/").token, [.jmap])
        #expect(try fixture.counted("wrong_audience") == 4)
        let bound = try fixture.issue(audience: "urn:atomicmail:agent:0b9d0f6e-8a4c-4a53-9d55-3c1f0d1e2f3a")
        #expect(
            try await fixture.verifier.grant(for: bound.token, resources: [.anyAgent]).resource
                == .agent(accountID: "0b9d0f6e-8a4c-4a53-9d55-3c1f0d1e2f3a"))
        await refused(fixture, bound.token, [.jmap, .mcp])
    }

    @Test("a token of another issuer is refused", arguments: StorageBackend.allCases)
    func wrongIssuer(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let owner = try fixture.rows.owner()
        let client = try fixture.rows.client()
        let grant = try fixture.rows.grant(
            owner: owner, client: client, scope: "mail.read", resource: OAuthVerifierFixture.jmap)
        try fixture.rows.token(jti: "jti-iss", grant: grant, expiresAt: fixture.clock.now + 900)
        let token = try fixture.keys.sign(
            fixture.claims(
                owner: owner, client: client, audience: OAuthVerifierFixture.jmap, scope: "mail.read", jti: "jti-iss",
                issuer: "https://evil.example"),
            for: .oauthAccess)
        await refused(fixture, token)
        #expect(try fixture.counted("wrong_issuer") == 1)
    }

    @Test(
        "algorithm confusion: RS256, HS256, alg none and an EdDSA token typed JWT are all refused",
        arguments: StorageBackend.allCases)
    func algorithmConfusion(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let owner = try fixture.rows.owner()
        let client = try fixture.rows.client()
        let grant = try fixture.rows.grant(
            owner: owner, client: client, scope: "mail.read", resource: OAuthVerifierFixture.jmap)
        try fixture.rows.token(jti: "jti-alg", grant: grant, expiresAt: fixture.clock.now + 900)
        let claims = fixture.claims(
            owner: owner, client: client, audience: OAuthVerifierFixture.jmap, scope: "mail.read", jti: "jti-alg")
        let good = try fixture.keys.sign(claims, for: .oauthAccess)
        _ = try await fixture.verifier.grant(for: good, resources: [.jmap])

        await refused(fixture, try fixture.keys.sign(claims, algorithm: .rs256))
        await refused(fixture, try fixture.keys.sign(claims, algorithm: .hs256))
        await refused(fixture, try fixture.keys.sign(claims, algorithm: .edDSA))  // typ JWT, not at+jwt
        let payload = good.split(separator: ".")[1]
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"at+jwt","kid":"ed-1"}"#.utf8)) + "." + payload + "."
        await refused(fixture, none)
        // The EdDSA key's kid with a header claiming HS256: the algorithm comes from the key, never the header.
        let forgedHeader = Base64URL.encode(Array(#"{"alg":"HS256","typ":"at+jwt","kid":"ed-1"}"#.utf8))
        await refused(fixture, forgedHeader + "." + payload + "." + good.split(separator: ".")[2])
        // A signature over other claims (a widened scope) does not verify.
        var widened = claims
        widened["scope"] = "mail.read mail.send"
        await refused(fixture, 
            String(good.split(separator: ".")[0]) + "." + Base64URL.encode(widened.json.serialize()) + "."
                + good.split(separator: ".")[2])
        #expect(try fixture.counted("invalid") == 6)
    }

    @Test(
        "an unknown jti, and a token whose claims disagree with its grant row, are refused",
        arguments: StorageBackend.allCases)
    func unknownGrant(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let owner = try fixture.rows.owner()
        let client = try fixture.rows.client()
        let grant = try fixture.rows.grant(
            owner: owner, client: client, scope: "mail.read", resource: OAuthVerifierFixture.jmap)
        let unrecorded = try fixture.keys.sign(
            fixture.claims(
                owner: owner, client: client, audience: OAuthVerifierFixture.jmap, scope: "mail.read", jti: "nobody"),
            for: .oauthAccess)
        await refused(fixture, unrecorded)
        try fixture.rows.token(jti: "jti-x", grant: grant, expiresAt: fixture.clock.now + 900)
        let otherOwner = try fixture.rows.owner()
        for claims in [
            fixture.claims(
                owner: otherOwner, client: client, audience: OAuthVerifierFixture.jmap, scope: "mail.read", jti: "jti-x"
            ),
            fixture.claims(
                owner: owner, client: "another", audience: OAuthVerifierFixture.jmap, scope: "mail.read", jti: "jti-x"),
            fixture.claims(
                owner: owner, client: client, audience: OAuthVerifierFixture.mcp, scope: "mail.read", jti: "jti-x"),
            fixture.claims(
                owner: owner, client: client, audience: OAuthVerifierFixture.jmap, scope: "mail.read mail.send",
                jti: "jti-x"),
        ] {
            await refused(fixture, try fixture.keys.sign(claims, for: .oauthAccess), [.jmap, .mcp])
        }
        #expect(try fixture.counted("unknown_grant") == 5)
    }

    @Test("a scope outside mail.read and mail.send, or an empty one, is refused", arguments: StorageBackend.allCases)
    func unknownScope(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        await refused(fixture, try fixture.issue(scope: "mail.read admin").token)
        await refused(fixture, try fixture.issue(scope: "").token)
    }

    @Test("only a header typed at+jwt is taken for an access token", arguments: StorageBackend.allCases)
    func routingHint(_ backend: StorageBackend) throws {
        let fixture = try OAuthVerifierFixture(backend)
        let issued = try fixture.issue()
        #expect(BearerAuthenticator.isAccessToken(issued.token))
        let capability = try fixture.keys.sign(
            JWTClaims(issuer: "x", purpose: .capability, issuedAt: 0, ttl: 60), for: .capability)
        #expect(!BearerAuthenticator.isAccessToken(capability))
        #expect(!BearerAuthenticator.isAccessToken("ak_live_key"))
        #expect(!BearerAuthenticator.isAccessToken("!!.!!.!!"))
    }
}
