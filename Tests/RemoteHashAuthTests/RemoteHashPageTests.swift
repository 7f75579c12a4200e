import Foundation
import HTTP1
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import RemoteHashAuth

@Suite("Remote hash HTML pages and CSRF")
struct RemoteHashPageTests {
    /// The value of the cookie `name` set by `response`.
    private func setCookie(_ response: HTTPResponse, _ name: String) -> String? {
        for header in response.headers.values("Set-Cookie") where header.hasPrefix(name + "=") {
            return String(header.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        return nil
    }

    /// The hidden CSRF field's value in a rendered page.
    private func hiddenToken(_ html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf_token\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    private func form(_ fields: [(String, String)]) -> [UInt8] {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return Array(
            fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
                .joined(separator: "&").utf8)
    }

    /// Posts a browser-like form with the given cookie header.
    private func post(_ h: Harness, _ path: String, _ fields: [(String, String)], cookie: String?) async -> HTTPResponse
    {
        var headers = [
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Accept", "text/html,application/xhtml+xml,*/*;q=0.8"),
        ]
        if let cookie { headers.append(("Cookie", cookie)) }
        return await h.send(.POST, path, headers: headers, body: form(fields))
    }

    @Test(
        "the page shows the public key and both forms, and sets a CSRF cookie matching the hidden field",
        arguments: StorageBackend.allCases)
    func page(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        for path in ["/", "/login_test"] {
            let response = await h.send(.GET, path, headers: [("Accept", "text/html")])
            #expect(response.status == .ok)
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
            let html = response.text
            #expect(html.contains("-----BEGIN PUBLIC KEY-----"))
            #expect(
                html.contains(try #require(sharedKeys.activeRSAPublicKey?.pem.split(separator: "\n")[1]).description))
            #expect(html.contains("action=\"/register\"") && html.contains("action=\"/login\""))
            #expect(html.contains("name=\"password_hash_url\""))
            let cookie = try #require(setCookie(response, "csrf"))
            #expect(hiddenToken(html) == cookie)
            let header = try #require(response.headers.values("Set-Cookie").first { $0.hasPrefix("csrf=") })
            #expect(header.contains("HttpOnly") && header.contains("SameSite=Strict"))
            #expect(response.headers["Content-Security-Policy"]?.contains("default-src 'none'") == true)
            let again = await h.send(.GET, path, headers: [("Cookie", "csrf=\(cookie)")])
            #expect(setCookie(again, "csrf") == nil)
            #expect(hiddenToken(again.text) == cookie)
        }
    }

    @Test(
        "form posts without a matching CSRF token are refused with 403 and the page",
        arguments: StorageBackend.allCases)
    func csrfRefused(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "pw")
        let token = try #require(setCookie(await h.send(.GET, "/login_test"), "csrf"))
        let other = try #require(setCookie(await h.send(.GET, "/login_test"), "csrf"))
        let fields = [("email", "csrf@example.com"), ("password_hash_url", url), ("password", "pw")]
        for (cookie, field) in [
            (nil, nil), ("csrf=\(token)", nil), (nil, token), ("csrf=\(token)", other), ("csrf=short", "short"),
        ] {
            var body = fields
            if let field { body.append(("csrf_token", field)) }
            for path in ["/register", "/login"] {
                let response = await post(h, path, body, cookie: cookie)
                #expect(
                    response.status == .forbidden, "\(path) \(String(describing: cookie)) \(String(describing: field))")
                #expect(response.text.contains("This form expired or did not come from this page."))
                #expect(setCookie(response, "csrf") != nil)
                // What the user typed is kept, but the password.
                #expect(response.text.contains("value=\"csrf@example.com\""))
                #expect(response.text.contains("value=\"\(url)\"") == (path == "/register"))
                #expect(!response.text.contains("value=\"pw\""))
            }
        }
        #expect(h.origin.acceptedConnections == 0)
        #expect(await h.login("csrf@example.com", "pw").error == "Invalid email or password.")
        // A JSON body cannot come from a cross-site form, so it needs no token even when HTML comes back.
        let json = await h.send(
            .POST, "/login", headers: [("Content-Type", "application/json")],
            body: Array(#"{"email":"nobody@example.com","password":"x"}"#.utf8))
        #expect(json.status == .unprocessableEntity)
        #expect(json.text.contains("Invalid email or password."))
    }

    @Test(
        "a form body needs the CSRF token even when Accept asks for JSON; the refusal is then JSON",
        arguments: StorageBackend.allCases)
    func csrfFormBodyAcceptingJSON(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "pw")
        let fields = [("email", "nocors@example.com"), ("password_hash_url", url), ("password", "pw")]
        let boundary = "postern-test-boundary"
        let multipart = Array(
            fields.map { "--\(boundary)\r\nContent-Disposition: form-data; name=\"\($0.0)\"\r\n\r\n\($0.1)\r\n" }
                .joined().appending("--\(boundary)--\r\n").utf8)
        // What a cross-site no-cors fetch can send without a preflight: CORS-safelisted headers only.
        let bodies: [(contentType: String?, body: [UInt8])] = [
            ("application/x-www-form-urlencoded", form(fields)),
            ("application/x-www-form-urlencoded; charset=UTF-8", form(fields)),
            ("multipart/form-data; boundary=\(boundary)", multipart),
            ("text/plain", form(fields)),
            (nil, form(fields)),
        ]
        for (contentType, body) in bodies {
            for path in ["/register", "/login"] {
                var headers = [("Accept", "application/json")]
                if let contentType { headers.append(("Content-Type", contentType)) }
                let response = await h.send(.POST, path, headers: headers, body: body)
                #expect(response.status == .forbidden, "\(path) \(String(describing: contentType))")
                #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
                #expect(
                    try JSONValue.parse(response.body)
                        == .object([
                            ("error", "This form expired or did not come from this page. Please submit it again.")
                        ]))
                #expect(response.headers["Cache-Control"] == "no-store")
            }
        }
        // Nothing was fetched or stored.
        #expect(h.origin.acceptedConnections == 0)
        #expect(await h.login("nocors@example.com", "pw").error == "Invalid email or password.")
        // An HTML client posting the same form without the token gets the page with the message.
        let page = await h.send(
            .POST, "/register", headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")],
            body: multipart)
        #expect(page.status == .forbidden)
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(page.text.contains("This form expired or did not come from this page."))
        // With the token and its cookie, a form post answered as JSON goes through.
        let token = try #require(setCookie(await h.send(.GET, "/login_test"), "csrf"))
        let accepted = await h.send(
            .POST, "/register",
            headers: [
                ("Accept", "application/json"), ("Content-Type", "application/x-www-form-urlencoded"),
                ("Cookie", "csrf=\(token)"),
            ],
            body: form(fields + [("csrf_token", token)]))
        #expect(accepted.status == .created)
        #expect(try JSONValue.parse(accepted.body)["email"]?.stringValue == "nocors@example.com")
        // A JSON body still needs no token: it cannot be sent cross-site without a preflight.
        #expect(await h.login("nocors@example.com", "pw").status == 200)
    }

    @Test(
        "register through the form: 303 to / (CONTRACT 3.1) with a one-time signed flash message",
        arguments: StorageBackend.allCases)
    func registerFlash(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "pw")
        let token = try #require(setCookie(await h.send(.GET, "/login_test"), "csrf"))
        let response = await post(
            h, "/register",
            [("email", "form@example.com"), ("password_hash_url", url), ("password", "pw"), ("csrf_token", token)],
            cookie: "csrf=\(token)")
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/")
        let flash = try #require(setCookie(response, "flash"))
        let shown = await h.send(.GET, "/", headers: [("Cookie", "csrf=\(token); flash=\(flash)")])
        #expect(shown.text.contains("Registration succeeded."))
        #expect(shown.headers.values("Set-Cookie").contains { $0.hasPrefix("flash=;") && $0.contains("Max-Age=0") })
        #expect(
            !(await h.send(.GET, "/login_test", headers: [("Cookie", "csrf=\(token)")])).text.contains("Registration succeeded."))
        let forged = "UmVnaXN0cmF0aW9uIHN1Y2NlZWRlZC4." + String(h.clock.now + 60) + ".AAAA"
        #expect(
            !(await h.send(.GET, "/login_test", headers: [("Cookie", "flash=\(forged)")])).text.contains(
                "Registration succeeded."))
        h.clock.advance(61)
        #expect(
            !(await h.send(.GET, "/login_test", headers: [("Cookie", "flash=\(flash)")])).text.contains("Registration succeeded.")
        )
        #expect(await h.login("form@example.com", "pw").status == 200)
    }

    @Test(
        "after a form registration the login form comes pre-filled with the email, once; the cookie is signed by name",
        arguments: StorageBackend.allCases)
    func registerPrefillsLogin(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "pw")
        let token = try #require(setCookie(await h.send(.GET, "/login_test"), "csrf"))
        let response = await post(
            h, "/register",
            [("email", "Prefill@Example.com"), ("password_hash_url", url), ("password", "pw"), ("csrf_token", token)],
            cookie: "csrf=\(token)")
        let email = try #require(setCookie(response, "login_email"))
        let flash = try #require(setCookie(response, "flash"))
        let shown = await h.send(.GET, "/login_test", headers: [("Cookie", "csrf=\(token); login_email=\(email)")])
        #expect(shown.text.contains("id=\"login-email\" name=\"email\" type=\"email\" autocomplete=\"email\" required value=\"prefill@example.com\""))
        #expect(shown.headers.values("Set-Cookie").contains { $0.hasPrefix("login_email=;") && $0.contains("Max-Age=0") })
        // The flash message's signed cookie does not pass as the email's, nor the other way round.
        let swapped = await h.send(.GET, "/login_test", headers: [("Cookie", "login_email=\(flash); flash=\(email)")])
        #expect(!swapped.text.contains("Registration succeeded.") && !swapped.text.contains("value=\"Registration"))
        #expect(!swapped.text.contains("prefill@example.com"))
    }

    @Test(
        "a failed form registration shows the page again with the message and escaped values",
        arguments: StorageBackend.allCases)
    func registerErrorEscaped(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let token = try #require(setCookie(await h.send(.GET, "/login_test"), "csrf"))
        let evil = "\"><script>alert(1)</script>"
        let response = await post(
            h, "/register",
            [
                ("email", evil), ("password_hash_url", "javascript:alert('x')<b>"), ("password", "pw"),
                ("csrf_token", token),
            ],
            cookie: "csrf=\(token)")
        #expect(response.status == .unprocessableEntity)
        let html = response.text
        #expect(html.contains("Email is invalid"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("javascript:alert(&#39;x&#39;)&lt;b&gt;"))
    }

    @Test(
        "login through the form shows the token with its decoded header and claims", arguments: StorageBackend.allCases)
    func loginPage(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        #expect(await h.register("page@example.com", try h.serveHash(of: "pw"), "pw") == (201, nil))
        let token = try #require(setCookie(await h.send(.GET, "/login_test"), "csrf"))
        let response = await post(
            h, "/login", [("email", "page@example.com"), ("password", "pw"), ("csrf_token", token)],
            cookie: "csrf=\(token)")
        #expect(response.status == .ok)
        let html = response.text
        #expect(html.contains("id=\"login-result\""))
        let textarea = try #require(html.range(of: "<textarea id=\"token\" readonly rows=\"5\">"))
        let jwt = String(html[textarea.upperBound...].prefix { $0 != "<" })
        #expect(
            try sharedKeys.verify(jwt, policy: h.service.tokenPolicy, now: h.clock.now).sub
                == "page@example.com")
        #expect(html.contains("&quot;alg&quot;: &quot;RS256&quot;"))
        #expect(html.contains("&quot;kid&quot;: &quot;remote-test&quot;"))
        #expect(html.contains("&quot;email&quot;: &quot;page@example.com&quot;"))
        #expect(html.contains("&quot;exp&quot;: \(h.clock.now + 3600)"))
        let failed = await post(
            h, "/login", [("email", "page@example.com"), ("password", "nope"), ("csrf_token", token)],
            cookie: "csrf=\(token)")
        #expect(failed.status == .unprocessableEntity)
        #expect(failed.text.contains("Invalid email or password."))
        #expect(!failed.text.contains("id=\"login-result\""))
    }
}
