import AuthCrypto
import HTTP1
import OAuthServer
import Owners
import PosternTestSupport
import ServerKit
import Testing

@Suite("OAuth authorization endpoint and consent")
struct OAuthAuthorizeTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    static func query(_ client: String, dropping: String? = nil, replacing: [String: String] = [:]) -> String {
        var items: [(String, String)] = [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", callback),
            ("scope", "mail.read mail.send"), ("resource", jmapResource), ("state", "st-123"),
            ("code_challenge", OAuthHarness.challenge(verifier)), ("code_challenge_method", "S256"),
        ]
        items = items.filter { $0.0 != dropping }.map { ($0.0, replacing[$0.0] ?? $0.1) }
        return items.map { "\($0.0)=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
    }

    @Test(
        "an unknown client or an unregistered redirect URI is a 400 page, never a redirect",
        arguments: StorageBackend.allCases)
    func pageErrors(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        for target in [
            "/oauth/authorize?" + Self.query("nobody"),
            "/oauth/authorize?" + Self.query(client.id, dropping: "client_id"),
            "/oauth/authorize?" + Self.query(client.id, dropping: "redirect_uri"),
            "/oauth/authorize?" + Self.query(client.id, replacing: ["redirect_uri": callback + "/more"]),
            "/oauth/authorize?" + Self.query(client.id, replacing: ["redirect_uri": "http://127.0.0.1:9999/"]),
        ] {
            let response = await harness.send(.GET, target)
            #expect(response.status == .badRequest, "\(target)")
            #expect(response.headers["Location"] == nil)
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
        }
    }

    @Test(
        "before consent every error is a 400 page without Location, even with a known client and redirect URI",
        arguments: StorageBackend.allCases)
    func noOpenRedirect(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let cases: [(String, String)] = [
            (Self.query(client.id, dropping: "state"), "invalid_request"),
            (Self.query(client.id, dropping: "resource"), "invalid_request"),
            (Self.query(client.id, replacing: ["resource": jmapResource + "/"]), "invalid_request"),
            (Self.query(client.id, replacing: ["resource": "https://127.0.0.1:8080/jmap"]), "invalid_request"),
            (Self.query(client.id, dropping: "code_challenge"), "invalid_request"),
            (Self.query(client.id, replacing: ["code_challenge_method": "plain"]), "invalid_request"),
            (Self.query(client.id, dropping: "code_challenge_method"), "invalid_request"),
            (Self.query(client.id, replacing: ["scope": "mail.read admin"]), "invalid_scope"),
            (Self.query(client.id, dropping: "scope"), "invalid_scope"),
            (Self.query(client.id, replacing: ["response_type": "token"]), "unsupported_response_type"),
            (Self.query(client.id) + "&state=again", "invalid_request"),
        ]
        // Nobody signed in: an attacker's own client and redirect URI get no 302 from the issuer.
        for (query, error) in cases {
            let response = await harness.send(.GET, "/oauth/authorize?" + query)
            #expect(response.status == .badRequest, "\(query)")
            #expect(response.headers["Location"] == nil, "\(query)")
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(String(decoding: response.body, as: UTF8.self).contains("(\(error))"), "\(query)")
        }
        #expect(await harness.send(.POST, "/oauth/authorize?" + Self.query(client.id)).status == .notFound)
    }

    @Test(
        "a loopback IP redirect URI matches on any port; localhost and other hosts match exactly",
        arguments: StorageBackend.allCases)
    func loopbackPorts(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient(redirect: "http://127.0.0.1/cb")
        _ = try await harness.owner()
        try await harness.signIn()
        for redirect in ["http://127.0.0.1:53123/cb", "http://127.0.0.1/cb", "http://127.0.0.1:80/cb"] {
            let page = await harness.send(
                .GET, "/oauth/authorize?" + Self.query(client.id, replacing: ["redirect_uri": redirect]))
            #expect(page.status == .ok, "\(redirect)")
            if redirect.contains("53123") {
                let policy = page.headers["Content-Security-Policy"] ?? ""
                #expect(policy.contains("form-action 'self' http://127.0.0.1:53123;"))
            }
        }
        let six = try await harness.registerClient(redirect: "http://[::1]:8080/cb")
        let page = await harness.send(
            .GET, "/oauth/authorize?" + Self.query(six.id, replacing: ["redirect_uri": "http://[::1]:49152/cb"]))
        #expect(page.status == .ok)
        #expect(page.headers["Content-Security-Policy"]?.contains("form-action 'self' http:;") == true)
        let named = try await harness.registerClient(redirect: "http://localhost:8080/cb")
        for (id, redirect) in [
            (client.id, "http://127.0.0.1:53123/cb/x"), (client.id, "http://127.0.0.1:53123/cb?x=1"),
            (client.id, "http://127.0.0.1:0/cb"), (client.id, "http://[::1]:53123/cb"),
            (client.id, "https://127.0.0.1:53123/cb"), (named.id, "http://localhost:9090/cb"),
        ] {
            let refused = await harness.send(
                .GET, "/oauth/authorize?" + Self.query(id, replacing: ["redirect_uri": redirect]))
            #expect(refused.status == .badRequest, "\(redirect)")
            #expect(refused.headers["Location"] == nil)
        }
    }

    @Test(
        "no session: 303 to the sign-in page, which comes back to the same authorization request",
        arguments: StorageBackend.allCases)
    func signInFirst(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let query = Self.query(client.id)
        let response = await harness.send(.GET, "/oauth/authorize?" + query)
        #expect(response.status == .seeOther)
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix("/owner/sign-in?next="))
        let next = OAuthHarness.location(response)["next"]
        #expect(next == "/oauth/authorize?" + query)
    }

    /// Signs in, opens the consent page; returns the page.
    /// Signs in and opens the consent page for `query`: the page and its hidden `csrf_token` and `request` fields.
    static func consentPage(_ harness: OAuthHarness, _ query: String) async throws
        -> (page: HTTPResponse, csrf: String, ticket: String)
    {
        try await harness.signIn()
        let page = await harness.send(.GET, "/oauth/authorize?" + query)
        #expect(page.status == .ok)
        return (
            page, try #require(OAuthHarness.hidden("csrf_token", in: page)),
            try #require(OAuthHarness.hidden("request", in: page))
        )
    }

    @Test(
        "approve: the consent page's form posts to /oauth/consent, which redirects code, state and iss",
        arguments: StorageBackend.allCases)
    func approve(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        let (page, csrf, ticket) = try await Self.consentPage(harness, Self.query(client.id))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("Test app"))
        #expect(html.contains("127.0.0.1"))
        #expect(html.contains("name=\"scope\" value=\"mail.read\""))
        #expect(html.contains("name=\"account_id\" value=\"\(owner.inbox)\""))
        #expect(html.contains("name=\"new_inbox\""))
        #expect(page.headers["Content-Security-Policy"]?.contains("form-action 'self' http://127.0.0.1:9999") == true)
        let response = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("scope", "mail.read"), ("account_id", owner.inbox),
                ("reach", "all"), ("decision", "approve"),
            ])
        #expect(response.status == .seeOther)
        let items = OAuthHarness.location(response)
        #expect(items["state"] == "st-123")
        #expect(items["iss"] == issuer)
        let code = try #require(items["code"])
        let token = await harness.exchange(code, clientID: client.id, verifier: Self.verifier)
        #expect(token.status == .ok)
        #expect(OAuthHarness.json(token)?["scope"]?.stringValue == "mail.read")
    }

    @Test(
        "deny redirects access_denied; a bad CSRF token is 403; a tampered request is 400",
        arguments: StorageBackend.allCases)
    func denyAndForgery(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        let (_, csrf, ticket) = try await Self.consentPage(harness, Self.query(client.id))
        let base: [(String, String)] = [
            ("scope", "mail.read"), ("account_id", owner.inbox), ("reach", "all"), ("decision", "approve"),
        ]
        let forged = await harness.send(.POST, "/oauth/consent", form: [("csrf_token", "x"), ("request", ticket)] + base)
        #expect(forged.status == .forbidden)
        let tampered = await harness.send(
            .POST, "/oauth/consent", form: [("csrf_token", csrf), ("request", "A" + ticket)] + base)
        #expect(tampered.status == .badRequest)
        let noScope = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("account_id", owner.inbox), ("reach", "all"),
                ("decision", "approve"),
            ])
        #expect(noScope.status == .badRequest)
        let deny = await harness.send(
            .POST, "/oauth/consent", form: [("csrf_token", csrf), ("request", ticket), ("decision", "deny")])
        #expect(deny.status == .found)
        #expect(OAuthHarness.location(deny)["error"] == "access_denied")
        #expect(OAuthHarness.location(deny)["state"] == "st-123")
        harness.clock.advance(601)
        let expired = await harness.send(.POST, "/oauth/consent", form: [("csrf_token", csrf), ("request", ticket)] + base)
        #expect(expired.status == .badRequest)
    }

    @Test(
        "new_inbox creates the default inbox; an inbox resource must be the owner's (else a 400 page)",
        arguments: StorageBackend.allCases)
    func inboxes(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        let (_, csrf, ticket) = try await Self.consentPage(harness, Self.query(client.id))
        let created = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("scope", "mail.send"), ("new_inbox", "fresh-inbox"),
                ("reach", "all"), ("decision", "approve"),
            ])
        #expect(created.status == .seeOther)
        #expect(try await harness.inboxes.inboxes(ownerID: owner.id).map(\.username).contains("fresh-inbox"))

        let stranger = try await harness.owner("stranger@example.com", inbox: "strangers")
        let foreign = await harness.send(
            .GET,
            "/oauth/authorize?"
                + Self.query(client.id, replacing: ["resource": "urn:atomicmail:agent:" + stranger.inbox]))
        #expect(foreign.status == .badRequest)
        #expect(foreign.headers["Location"] == nil)
        let own = await harness.send(
            .GET,
            "/oauth/authorize?" + Self.query(client.id, replacing: ["resource": "urn:atomicmail:agent:" + owner.inbox]))
        #expect(own.status == .ok)
        #expect(!String(decoding: own.body, as: UTF8.self).contains("new_inbox"))
    }

    @Test(
        "new_inbox past the owner's inbox cap is refused 403 on the consent page, and nothing is made",
        arguments: StorageBackend.allCases)
    func inboxCap(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        // The composition root hands the authorization server the owners' capped inboxes; here the cap is 1.
        let capped = try OAuthHarness.service(
            harness.test.database, keys: harness.keys, owners: harness.owners,
            inboxes: CappedOwnedInboxes(harness.inboxes, limit: 1), pool: harness.pool, clock: harness.clock)
        var router = ContextRouter()
        harness.owners.register(into: &router)
        capped.register(into: &router)
        harness.router = router
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        let (_, csrf, ticket) = try await Self.consentPage(harness, Self.query(client.id))
        let refused = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("scope", "mail.send"), ("new_inbox", "one-too-many"),
                ("reach", "all"), ("decision", "approve"),
            ])
        #expect(refused.status == .forbidden)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("You hold 1 inboxes, the most one owner may"))
        #expect(try await harness.inboxes.inboxes(ownerID: owner.id).map(\.username) == ["owned-inbox"])
    }
}
