import AuthCrypto
import Directory
import Foundation
import HTTP1
import JSON
import JWT
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// Logout tokens delivered, as a relying party's back-channel endpoint would receive them.
final class LogoutRecorder: OIDCLogoutDelivering {
    let delivered = Mutex<[(token: String, uri: String)]>([])

    func deliverLogout(token: String, to uri: String) async -> Bool {
        delivered.withLock { $0.append((token, uri)) }
        return true
    }
}

/// A harness with the OpenID Provider on, an owner, and a relying party (client_secret_basic).
struct RelyingPartyFixture {
    let harness: OAuthHarness
    let recorder = LogoutRecorder()
    let ownerID: String
    let clientID: String
    let secret: String
    static let callback = "https://rp.example/cb"

    init(
        _ backend: StorageBackend, firstParty: Bool = false, legacy: Bool = false,
        algorithm: OIDCRelyingParty.SigningAlgorithm = .rs256, subjectType: OIDCRelyingParty.SubjectType = .public,
        mailAccess: MailPermissions? = nil
    ) async throws {
        harness = try OAuthHarness(backend, openID: recorder)
        ownerID = try await harness.owner().id
        let (client, secret) = try await OAuthConfidentialClients(database: harness.test.database).create(
            .init(name: "Team wiki", authMethod: .clientSecretBasic, permissions: .read, inboxes: [],
                introspection: false),
            now: harness.clock.now)
        clientID = client.clientID
        self.secret = try #require(secret)
        try await OIDCRelyingParties(database: harness.test.database).record(
            OIDCRelyingParty(
                clientID: client.clientID, name: client.name, redirectURIs: [Self.callback],
                postLogoutRedirectURIs: ["https://rp.example/bye"], backchannelLogoutURI: "http://127.0.0.1:9/logout",
                idTokenAlgorithm: algorithm, firstParty: firstParty, legacyNoPKCE: legacy, subjectType: subjectType,
                mailAccess: mailAccess))
    }

    var basic: (String, String) {
        ("Authorization", "Basic " + Base64.encode(Array("\(clientID):\(secret)".utf8)))
    }

    /// `GET /oauth/authorize` with the usual parameters (`scope` among them) and `extra` (which replaces a usual one of
    /// its name).
    func authorize(
        _ extra: [(String, String)] = [], scope: String = "openid email profile",
        verifier: String = "v" + String(repeating: "x", count: 50)
    ) async -> HTTPResponse {
        let usual = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", Self.callback),
            ("scope", scope), ("state", "st-1"), ("nonce", "nonce-1"),
            ("code_challenge", OAuthHarness.challenge(verifier)), ("code_challenge_method", "S256"),
        ]
        let query = PercentEncoding.query(usual.filter { item in !extra.contains { $0.0 == item.0 } } + extra)
        return await harness.send(.GET, "/oauth/authorize?" + query)
    }

    /// Approves the consent page `page`; the redirect.
    func approve(_ page: HTTPResponse) async throws -> HTTPResponse {
        let csrf = try #require(OAuthHarness.hidden("csrf_token", in: page))
        let ticket = try #require(OAuthHarness.hidden("request", in: page))
        return await harness.send(
            .POST, "/oauth/openid-consent", form: [("csrf_token", csrf), ("request", ticket), ("decision", "approve")])
    }

    /// Exchanges `code` with Basic authentication.
    func token(_ code: String, verifier: String = "v" + String(repeating: "x", count: 50)) async -> HTTPResponse {
        await harness.send(
            .POST, "/oauth/token",
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.callback),
                ("code_verifier", verifier),
            ], headers: [basic])
    }

    /// The claims of `idToken`, its signature checked against the server's published JWKS.
    func verified(_ idToken: String) throws -> JWTClaims {
        try PublishedKeySet(jwks: harness.keys.jwksJSON()).verify(idToken)
    }
}

@Suite("OpenID Provider: discovery, code flow with ID token and userinfo, prompt and max_age, logout",
    .timeLimit(.minutes(1)))
struct OIDCProviderTests {
    @Test("the OpenID configuration is the RFC 8414 document, with the OpenID members")
    func discovery() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite)
        let openID = await fixture.harness.send(.GET, "/.well-known/openid-configuration")
        let oauth = await fixture.harness.send(.GET, "/.well-known/oauth-authorization-server")
        #expect(openID.status == .ok)
        #expect(openID.body == oauth.body)
        let document = try #require(OAuthHarness.json(openID))
        #expect(document["userinfo_endpoint"]?.stringValue == issuer + "/oauth/userinfo")
        #expect(document["end_session_endpoint"]?.stringValue == issuer + "/oauth/logout")
        #expect(
            document["id_token_signing_alg_values_supported"]
                == .array([.string("RS256"), .string("EdDSA"), .string("ES256")]))
        #expect(document["subject_types_supported"] == .array([.string("public"), .string("pairwise")]))
        #expect(document["claims_parameter_supported"] == .bool(true))
        #expect(document["scopes_supported"]?.arrayValue?.contains(.string("openid")) == true)
    }

    @Test("sign-in, consent, code, ID token with every claim, userinfo; a reused code revokes the access token",
        arguments: StorageBackend.allCases)
    func codeFlow(backend: StorageBackend) async throws {
        let fixture = try await RelyingPartyFixture(backend)
        let signedOut = await fixture.authorize()
        #expect(signedOut.status == .seeOther)
        #expect(signedOut.headers["Location"]?.hasPrefix("/owner/sign-in?next=%2Foauth%2Fauthorize") == true)
        try await fixture.harness.signIn()
        let signInTime = fixture.harness.clock.now
        let consent = await fixture.authorize()
        #expect(consent.status == .ok)
        let back = try await fixture.approve(consent)
        let location = OAuthHarness.location(back)
        #expect(back.headers["Location"]?.hasPrefix(RelyingPartyFixture.callback + "?") == true)
        #expect(location["state"] == "st-1")
        #expect(location["iss"] == issuer)
        let code = try #require(location["code"])

        let response = await fixture.token(code)
        #expect(response.status == .ok)
        let body = try #require(OAuthHarness.json(response))
        let accessToken = try #require(body["access_token"]?.stringValue)
        let claims = try fixture.verified(try #require(body["id_token"]?.stringValue))
        #expect(claims.iss == issuer)
        #expect(claims.sub == fixture.ownerID)
        #expect(claims["aud"]?.stringValue == fixture.clientID)
        #expect(claims["azp"]?.stringValue == fixture.clientID)
        #expect(claims["nonce"]?.stringValue == "nonce-1")
        #expect(claims["auth_time"]?.intValue == signInTime)
        #expect(claims["amr"] == .array([.string("pwd")]))
        #expect(claims["email"]?.stringValue == "owner@example.com")
        let half = Array(SHA256.hash(Array(accessToken.utf8)).prefix(16))
        #expect(claims["at_hash"]?.stringValue == Base64URL.encode(half))

        let userinfo = await fixture.harness.send(
            .GET, "/oauth/userinfo", headers: [("Authorization", "Bearer " + accessToken)])
        #expect(userinfo.status == .ok)
        #expect(OAuthHarness.json(userinfo)?["sub"]?.stringValue == fixture.ownerID)
        #expect(OAuthHarness.json(userinfo)?["email"]?.stringValue == "owner@example.com")
        let posted = await fixture.harness.send(
            .POST, "/oauth/userinfo", form: [], headers: [("Authorization", "Bearer " + accessToken)])
        #expect(posted.status == .ok)

        let replay = await fixture.token(code)
        #expect(OAuthHarness.error(replay) == "invalid_grant")
        let revoked = await fixture.harness.send(
            .GET, "/oauth/userinfo", headers: [("Authorization", "Bearer " + accessToken)])
        #expect(revoked.status == .unauthorized)
        #expect(revoked.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
    }

    @Test("prompt=none: login_required signed out, a code with a remembered consent; max_age forces a new sign-in")
    func prompts() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite)
        let none = await fixture.authorize([("prompt", "none")])
        #expect(OAuthHarness.location(none)["error"] == "login_required")
        #expect(OAuthHarness.location(none)["state"] == "st-1")
        try await fixture.harness.signIn()
        let unconsented = await fixture.authorize([("prompt", "none")])
        #expect(OAuthHarness.location(unconsented)["error"] == "consent_required")
        _ = try await fixture.approve(await fixture.authorize())
        let remembered = await fixture.authorize([("prompt", "none")])
        #expect(OAuthHarness.location(remembered)["code"] != nil)

        fixture.harness.clock.advance(120)
        let stale = await fixture.authorize([("prompt", "none"), ("max_age", "60")])
        #expect(OAuthHarness.location(stale)["error"] == "login_required")
        let forced = await fixture.authorize([("max_age", "60")])
        #expect(forced.headers["Location"]?.contains("&again=login") == true)
        let login = await fixture.authorize([("prompt", "login")])
        #expect(login.headers["Location"]?.contains("login_since%3D") == true)
    }

    @Test("a first-party client skips consent; an unregistered redirect URI is a page, not a redirect")
    func firstParty() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite, firstParty: true)
        try await fixture.harness.signIn()
        let direct = await fixture.authorize()
        #expect(OAuthHarness.location(direct)["code"] != nil)
        let query = PercentEncoding.query([
            ("response_type", "code"), ("client_id", fixture.clientID), ("redirect_uri", "https://evil.example/cb"),
            ("scope", "openid"),
        ])
        let evil = await fixture.harness.send(.GET, "/oauth/authorize?" + query)
        #expect(evil.status == .badRequest)
        #expect(evil.headers["Location"] == nil)
    }

    @Test("invalid_client over Basic is 401 with WWW-Authenticate; a wrong verifier is invalid_grant")
    func clientErrors() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite, firstParty: true)
        let wrong = await fixture.harness.send(
            .POST, "/oauth/token", form: [("grant_type", "authorization_code"), ("code", "x")],
            headers: [("Authorization", "Basic " + Base64.encode(Array("\(fixture.clientID):nope".utf8)))])
        #expect(wrong.status == .unauthorized)
        #expect(wrong.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        try await fixture.harness.signIn()
        let code = try #require(OAuthHarness.location(await fixture.authorize())["code"])
        #expect(OAuthHarness.error(await fixture.token(code, verifier: String(repeating: "y", count: 50))) == "invalid_grant")
    }

    @Test("RP-initiated logout with id_token_hint ends the session and delivers a logout token with sid")
    func logout() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite, firstParty: true)
        try await fixture.harness.signIn()
        let code = try #require(OAuthHarness.location(await fixture.authorize())["code"])
        let idToken = try #require(OAuthHarness.json(await fixture.token(code))?["id_token"]?.stringValue)
        let sid = try fixture.verified(idToken)["sid"]?.stringValue
        let query = PercentEncoding.query([
            ("id_token_hint", idToken), ("post_logout_redirect_uri", "https://rp.example/bye"), ("state", "bye-1"),
        ])
        let out = await fixture.harness.send(.GET, "/oauth/logout?" + query)
        #expect(out.headers["Location"] == "https://rp.example/bye?state=bye-1")
        let delivered = fixture.recorder.delivered.withLock { $0 }
        #expect(delivered.count == 1)
        let logoutToken = try fixture.verified(try #require(delivered.first?.token))
        #expect(delivered.first?.uri == "http://127.0.0.1:9/logout")
        #expect(logoutToken["sid"]?.stringValue == sid)
        #expect(logoutToken.sub == fixture.ownerID)
        #expect(logoutToken["events"]?["http://schemas.openid.net/event/backchannel-logout"] == .object([]))
        #expect(logoutToken["nonce"] == nil)
        let none = await fixture.authorize([("prompt", "none")])
        #expect(OAuthHarness.location(none)["error"] == "login_required")
        let unregistered = await fixture.harness.send(
            .GET, "/oauth/logout?" + PercentEncoding.query([("client_id", fixture.clientID),
                ("post_logout_redirect_uri", "https://evil.example/")]))
        #expect(unregistered.status == .badRequest)
    }

    @Test("signing out on the owner pages delivers a logout token to the relying party the session signed in to")
    func ownerSignOut() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite)
        try await fixture.harness.signIn()
        let consent = await fixture.authorize()
        // The consent page's CSRF token is the session's, which the sign-out form takes too.
        let csrf = try #require(OAuthHarness.hidden("csrf_token", in: consent))
        let code = try #require(OAuthHarness.location(try await fixture.approve(consent))["code"])
        #expect(await fixture.token(code).status == .ok)
        let out = await fixture.harness.send(.POST, "/owner/sign-out", form: [("csrf_token", csrf)])
        #expect(out.status == .seeOther)
        let delivered = fixture.recorder.delivered.withLock { $0 }
        #expect(delivered.count == 1)
        #expect(try fixture.verified(try #require(delivered.first?.token)).sub == fixture.ownerID)
    }

    @Test("a client registered for EdDSA gets Ed25519 ID tokens whose at_hash is the left half of SHA-512")
    func edDSA() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite, firstParty: true, algorithm: .edDSA)
        try await fixture.harness.signIn()
        let code = try #require(OAuthHarness.location(await fixture.authorize())["code"])
        let body = try #require(OAuthHarness.json(await fixture.token(code)))
        let idToken = try #require(body["id_token"]?.stringValue)
        let header = try #require(idToken.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) })
        #expect(try JSONValue.parse(header)["alg"]?.stringValue == "EdDSA")
        let claims = try fixture.verified(idToken)
        let accessToken = try #require(body["access_token"]?.stringValue)
        #expect(claims["at_hash"]?.stringValue == Base64URL.encode(Array(SHA512.hash(accessToken).prefix(32))))
    }

    @Test(
        "ES256 and pairwise: verified through the JWKS, a sub of the sector's at every sign-in and at userinfo; claims",
        arguments: StorageBackend.allCases)
    func es256Pairwise(backend: StorageBackend) async throws {
        let fixture = try await RelyingPartyFixture(
            backend, firstParty: true, algorithm: .es256, subjectType: .pairwise(sector: "rp.example"))
        let stored = try #require(
            try await OIDCRelyingParties(database: fixture.harness.test.database).party(id: fixture.clientID))
        #expect(stored.idTokenAlgorithm == .es256 && stored.subjectType == .pairwise(sector: "rp.example"))
        try await fixture.harness.signIn()
        var subjects: [String] = []
        var accessToken = ""
        for _ in 0..<2 {
            let redirect = await fixture.authorize([
                ("scope", "openid"), ("claims", #"{"id_token":{"email":{"essential":true},"name":null}}"#),
            ])
            let code = try #require(OAuthHarness.location(redirect)["code"])
            let body = try #require(OAuthHarness.json(await fixture.token(code)))
            let idToken = try #require(body["id_token"]?.stringValue)
            let header = try #require(idToken.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) })
            #expect(try JSONValue.parse(header)["alg"]?.stringValue == "ES256")
            let claims = try fixture.verified(idToken)
            accessToken = try #require(body["access_token"]?.stringValue)
            #expect(claims["at_hash"]?.stringValue == Base64URL.encode(Array(SHA256.hash(accessToken).prefix(16))))
            #expect(claims["email"]?.stringValue == "owner@example.com")
            #expect(claims["name"] == claims["email"])
            #expect(claims["preferred_username"] == nil)
            subjects.append(try #require(claims.sub))
        }
        #expect(subjects[0] == subjects[1])
        #expect(subjects[0] != fixture.ownerID && subjects[0].utf8.count == 43)
        let info = await fixture.harness.send(
            .GET, "/oauth/userinfo", headers: [("Authorization", "Bearer " + accessToken)])
        #expect(OAuthHarness.json(info) == .object([("sub", .string(subjects[0]))]))
    }
}
