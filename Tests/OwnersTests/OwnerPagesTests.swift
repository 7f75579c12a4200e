import HTTP1
import Owners
import PosternTestSupport
import Testing

@Suite("Owners: sign-in, sign-up and sign-out pages")
struct OwnerPagesTests {
    @Test(
        "signing in sets a new HttpOnly, SameSite=Lax session cookie and follows a local next",
        arguments: StorageBackend.allCases)
    func signIn(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let page = await harness.send(.GET, "/owner/sign-in")
        #expect(page.status.code == 200)
        #expect(page.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("name=\"email\"") && html.contains("name=\"password\""))
        harness.cookies["postern_owner"] = "planted-by-an-attacker-0000000000000000000"
        let response = try await harness.signIn("ada@example.com", "correct horse", next: "/oauth/authorize?client_id=x")
        #expect(response.status.code == 303)
        #expect(response.headers["Location"] == "/oauth/authorize?client_id=x")
        let cookie = try #require(response.headers.values("Set-Cookie").first { $0.hasPrefix("postern_owner=") })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && !cookie.contains("Secure"))
        #expect(harness.cookies["postern_owner"] != "planted-by-an-attacker-0000000000000000000")
        let signedIn = await harness.send(.GET, "/owner/sign-in?next=/owner/x")
        #expect(signedIn.status.code == 303 && signedIn.headers["Location"] == "/owner/x")
    }

    @Test(
        "/owner links to the domains once, in the navigation, whose current link names the page (issue 83 item 11)",
        arguments: StorageBackend.allCases)
    func oneDomainsLink(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        harness.routeInboxPages()
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let page = await harness.send(.GET, "/owner")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status.code == 200)
        #expect(html.ranges(of: "href=\"/owner/domains\"").count == 1, "one link to /owner/domains")
        #expect(html.contains(#"<a href="/owner" aria-current="page">Your inboxes</a>"#))
        #expect(html.contains(#"<h1 class="named-by-navigation">Your inboxes</h1>"#))
    }

    @Test("a next that leaves the site goes to /owner instead", arguments: StorageBackend.allCases, [
        "https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:alert(1)", "",
    ])
    func offSiteNext(_ backend: StorageBackend, next: String) async throws {
        let harness = try OwnersHarness(backend)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let response = try await harness.signIn("ada@example.com", "correct horse", next: next)
        #expect(response.headers["Location"] == "/owner")
    }

    @Test("a wrong password and an unknown email get the same 401 page", arguments: StorageBackend.allCases)
    func wrongCredentials(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let wrong = try await harness.signIn("ada@example.com", "wrong horse")
        let unknown = try await harness.signIn("nobody@example.com", "wrong horse")
        #expect(wrong.status.code == 401 && unknown.status.code == 401)
        let text = { (r: HTTPResponse) in String(decoding: r.body, as: UTF8.self) }
        #expect(text(wrong).contains("Wrong email or password."))
        #expect(text(wrong).replacingOccurrences(of: "ada@example.com", with: "")
            .replacingOccurrences(of: Self.csrf(wrong), with: "")
            == text(unknown).replacingOccurrences(of: "nobody@example.com", with: "")
            .replacingOccurrences(of: Self.csrf(unknown), with: ""))
        #expect(harness.cookies["postern_owner"] == nil)
    }

    @Test("a blocked email gets 429 with Retry-After", arguments: StorageBackend.allCases)
    func slowDown(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        for _ in 0..<6 { _ = try await harness.signIn("ada@example.com", "wrong horse") }
        let response = try await harness.signIn("ada@example.com", "wrong horse")
        #expect(response.status.code == 429 && response.headers["Retry-After"] == "2")
    }

    @Test(
        "failures from one address lock out that address for the email; the owner still signs in from another",
        arguments: StorageBackend.allCases)
    func targetedLockout(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        harness.browser = RouteBrowser(remoteAddress: "198.51.100.7", requestID: "attacker")
        for _ in 0..<6 { _ = try await harness.signIn("ada@example.com", "wrong horse") }
        let attacker = try await harness.signIn("ada@example.com", "correct horse")
        #expect(attacker.status.code == 429 && harness.cookies["postern_owner"] == nil)
        harness.browser = RouteBrowser(remoteAddress: "203.0.113.5", requestID: "owner")
        let owner = try await harness.signIn("ada@example.com", "correct horse")
        #expect(owner.status.code == 303 && harness.cookies["postern_owner"] != nil)
    }

    @Test(
        "past the email-wide bar the email is blocked from every address, and lifts with time",
        arguments: StorageBackend.allCases)
    func emailWideLockout(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend) { $0.backoff.emailFreeFailures = 14 }
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        // Three failures each from five addresses: no address is past its own five; the fifteenth failure of the
        // email is past its fourteen and blocks it for 2 s.
        for host in 1...5 {
            harness.browser = RouteBrowser(remoteAddress: "198.51.100.\(host)", requestID: "spray")
            for _ in 0..<3 { #expect(try await harness.signIn("ada@example.com", "wrong horse").status.code == 401) }
        }
        harness.browser = RouteBrowser(remoteAddress: "203.0.113.5", requestID: "owner")
        let blocked = try await harness.signIn("ada@example.com", "correct horse")
        #expect(blocked.status.code == 429 && blocked.headers["Retry-After"] == "2")
        harness.clock.advance(2)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status.code == 303)
    }

    @Test("a form without the browser's CSRF token is refused", arguments: StorageBackend.allCases, [nil, "forged"])
    func csrf(_ backend: StorageBackend, token: String?) async throws {
        let harness = try OwnersHarness(backend)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = await harness.send(.GET, "/owner/sign-in")
        var form = ["email": "ada@example.com", "password": "correct horse"]
        form["csrf_token"] = token
        let response = await harness.send(.POST, "/owner/sign-in", form: form)
        #expect(response.status.code == 403 && harness.cookies["postern_owner"] == nil)
    }

    @Test("signing out ends the session on the server, not only in the browser", arguments: StorageBackend.allCases)
    func signOut(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owner = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.signIn("ada@example.com", "correct horse")
        let session = try #require(harness.cookies["postern_owner"])
        #expect(try await harness.service.browser.sessions.owner(token: session) == owner)
        let refused = await harness.send(.POST, "/owner/sign-out", form: ["csrf_token": "forged"])
        #expect(refused.status.code == 403)
        let token = try #require(harness.service.browser.csrf(for: try Self.request(cookie: session)).token as String?)
        let response = await harness.send(.POST, "/owner/sign-out", form: ["csrf_token": token])
        #expect(response.status.code == 303 && response.headers["Location"] == "/owner/sign-in")
        #expect(try await harness.service.browser.sessions.owner(token: session) == nil)
        #expect(harness.cookies["postern_owner"] == nil)
    }

    @Test("sign-up is absent unless open, and when open creates and signs in", arguments: StorageBackend.allCases)
    func signUp(_ backend: StorageBackend) async throws {
        let closed = try OwnersHarness(backend)
        #expect(await closed.send(.GET, "/owner/sign-up").status.code == 404)
        let open = try OwnersHarness(backend) { $0.signUpOpen = true }
        let page = await open.send(.GET, "/owner/sign-up?next=/owner")
        let token = try #require(OwnersHarness.csrf(in: page))
        let short = await open.send(
            .POST, "/owner/sign-up", form: ["email": "ada@example.com", "password": "short", "csrf_token": token])
        #expect(short.status.code == 422)
        let created = await open.send(
            .POST, "/owner/sign-up",
            form: ["email": "ada@example.com", "password": "correct horse", "csrf_token": token, "next": "/owner"])
        #expect(created.status.code == 303 && open.cookies["postern_owner"] != nil)
        #expect(try await open.service.owners.list().map(\.email) == ["ada@example.com"])
    }

    // SQLite's `query_only` makes the one writer refuse writes, as a database in a failover does (issue 73); PostgreSQL's
    // outage is shown by PostgresClient's tests and the failover stage.
    @Test("sign-up while the database cannot write answers the 503 page with Retry-After, as every other door does")
    func signUpDatabaseUnavailable() async throws {
        let harness = try OwnersHarness(.sqlite) { $0.signUpOpen = true }
        let page = await harness.send(.GET, "/owner/sign-up?next=/owner")
        let token = try #require(OwnersHarness.csrf(in: page))
        try harness.test.database.writeSync { try $0.execute("PRAGMA query_only = ON") }
        let response = await harness.send(
            .POST, "/owner/sign-up",
            form: ["email": "ada@example.com", "password": "correct horse", "csrf_token": token, "next": "/owner"])
        #expect(response.status.code == 503)
        #expect(response.headers["Retry-After"] == "1")
        #expect(response.text.contains("briefly unavailable"))
        #expect(!response.text.lowercased().contains("sqlite") && !response.text.lowercased().contains("readonly"))
        #expect(harness.cookies["postern_owner"] == nil)
    }

    @Test(
        "sign-up with an email that has an account answers as for a new account: no words, no session, no change",
        arguments: StorageBackend.allCases)
    func signUpTakenEmail(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend) { $0.signUpOpen = true }
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        func signUp(_ email: String) async throws -> HTTPResponse {
            harness.cookies = [:]
            let page = await harness.send(.GET, "/owner/sign-up?next=/owner")
            let token = try #require(OwnersHarness.csrf(in: page))
            return await harness.send(
                .POST, "/owner/sign-up",
                form: ["email": email, "password": "another horse", "csrf_token": token, "next": "/owner"])
        }
        let fresh = try await signUp("bea@example.com")
        let taken = try await signUp("ADA@example.com")
        #expect(taken.status.code == fresh.status.code && taken.headers["Location"] == fresh.headers["Location"])
        #expect(taken.body == fresh.body)
        #expect(!taken.text.contains("already"))
        #expect(harness.cookies["postern_owner"] == nil, "no session for someone else's account")
        #expect(try await harness.service.owners.list().map(\.email) == ["ada@example.com", "bea@example.com"])
        let signedIn = try await harness.signIn("ada@example.com", "correct horse")
        #expect(signedIn.status.code == 303 && harness.cookies["postern_owner"] != nil, "Ada's password unchanged")
        #expect(try await harness.service.owners.owner(id: ada.id) == ada)
    }

    @Test(
        "a sign-up with a taken email costs a sign-up, as a new account does: the answer cannot be had for free",
        arguments: StorageBackend.allCases)
    func signUpTakenEmailCharged(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend) { $0.signUpOpen = true }
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        func signUp(_ email: String) async throws -> HTTPResponse {
            harness.cookies = [:]
            let page = await harness.send(.GET, "/owner/sign-up")
            let token = try #require(OwnersHarness.csrf(in: page))
            return await harness.send(
                .POST, "/owner/sign-up", form: ["email": email, "password": "correct horse", "csrf_token": token])
        }
        for _ in 1...5 { #expect(try await signUp("ada@example.com").status.code == 303) }
        #expect(try await signUp("bea@example.com").status.code == 429)
    }

    @Test(
        "open sign-up: 5 owners an hour from one address by default, then 429; another address still may",
        arguments: StorageBackend.allCases)
    func signUpLimit(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend) { $0.signUpOpen = true }
        func signUp(_ email: String, _ password: String = "correct horse") async throws -> HTTPResponse {
            harness.cookies = [:]
            let page = await harness.send(.GET, "/owner/sign-up")
            let token = try #require(OwnersHarness.csrf(in: page))
            return await harness.send(
                .POST, "/owner/sign-up", form: ["email": email, "password": password, "csrf_token": token])
        }
        // A refused form (a short password) costs nothing.
        #expect(try await signUp("weak@example.com", "short").status.code == 422)
        for index in 1...5 { #expect(try await signUp("owner\(index)@example.com").status.code == 303) }
        let refused = try await signUp("owner6@example.com")
        #expect(refused.status.code == 429 && Int(refused.headers["Retry-After"] ?? "") ?? 0 > 0)
        #expect(refused.text.contains("Too many new accounts from your network"))
        #expect(try await harness.service.owners.list().count == 5)
        harness.browser = RouteBrowser(remoteAddress: "203.0.113.5", requestID: "elsewhere")
        #expect(try await signUp("owner6@example.com").status.code == 303)
    }

    @Test("cookies are Secure behind an https public URL", arguments: StorageBackend.allCases)
    func secureCookies(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend) { $0.publicURL = "https://auth.example" }
        let page = await harness.send(.GET, "/owner/sign-in")
        #expect(page.headers.values("Set-Cookie").allSatisfy { $0.contains("; Secure") })
    }

    static func csrf(_ response: HTTPResponse) -> String { OwnersHarness.csrf(in: response) ?? "" }

    static func request(cookie: String) throws -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Cookie", "postern_owner=\(cookie)")
        return HTTPRequest(
            method: .POST, target: "/", version: .http1_1, headers: headers, body: [], remoteAddress: "192.0.2.9",
            requestID: "t")
    }
}
