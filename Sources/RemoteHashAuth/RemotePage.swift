import ServerKit

/// What `/` shows above the demo (the server's landing sections): its heading, lead and sections, inserted as they
/// are.
public struct RemotePageLanding: Sendable {
    public var title: String
    public var lead: String
    public var sections: HTML

    /// - Parameters: see the properties (`title` and `lead` are text, escaped here).
    public init(title: String, lead: String, sections: HTML) {
        self.title = title
        self.lead = lead
        self.sections = sections
    }
}

/// The one server-rendered page of the surface: public key, register and login forms, the token
/// after a login, and short API docs, under the server's landing sections at `/`. Built as ``HTML``, so every
/// interpolated value is escaped.
struct RemotePage {
    /// A successful login, shown with the token's decoded parts.
    struct LoginResult {
        var token: String
        var header: String
        var claims: String
    }

    var publicKeyPEM: String
    var publicURL: String
    var csrfToken: String
    var notice: String? = nil
    var error: String? = nil
    /// Which form the error belongs to: "register", "login" or nil for the page.
    var errorForm: String? = nil
    var registerEmail: String = ""
    var registerURL: String = ""
    var loginEmail: String = ""
    var login: LoginResult? = nil
    var landing: RemotePageLanding? = nil

    func render() -> HTML {
        let base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        let demo: HTML = """
            Register an email address with a URL that serves a plaintext Argon2 password hash,
            then log in against whatever hash that URL serves now. Tokens are RS256 JWTs.
            """
        let header: HTML =
            landing.map { (landing) -> HTML in "\n<h1>\(landing.title)</h1>\n<p class=\"lead\">\(landing.lead)</p>\n" }
            ?? "\n<h1>Remote Argon2 login</h1>\n<p class=\"lead\">\(demo)</p>\n"
        var html: HTML = ""
        if let notice { html += HTML.notice(notice, .success) + "\n" }
        if let error, errorForm == nil { html += HTML.notice(error, .error) + "\n" }
        if let landing {
            html += "\(landing.sections)\n<h2 id=\"demo\">Remote Argon2 login</h2>\n<p>\(demo)</p>\n"
        }
        if let login {
            html += """
                <section class="card result" id="login-result">
                <h2>Logged in</h2>
                <p>Send this token as <code>Authorization: Bearer &lt;token&gt;</code>; it expires in one hour.</p>
                <label for="token">Token</label>
                <textarea id="token" readonly rows="5">\(login.token)</textarea>
                <div class="split">
                <div><h3>Header</h3><pre id="token-header">\(login.header)</pre></div>
                <div><h3>Claims</h3><pre id="token-claims">\(login.claims)</pre></div>
                </div>
                </section>

                """
        }
        html += """
            <div class="split">
            <section class="card" id="register">
            <h2>Register</h2>
            \(formError("register"))
            <form method="post" action="/register" id="register-form">
            <input type="hidden" name="csrf_token" value="\(csrfToken)">
            <label for="register-email">Email</label>
            <input id="register-email" name="email" type="email" autocomplete="email" required value="\(registerEmail)">
            <label for="register-url">Password hash URL</label>
            <input id="register-url" name="password_hash_url" type="url" required placeholder="https://example.com/hash.txt" value="\(registerURL)">
            <label for="register-password">Password</label>
            <input id="register-password" name="password" type="password" autocomplete="new-password" required>
            <button type="submit">Register</button>
            </form>
            <p class="hint">Need a hash to try? <a href="/example.txt">/example.txt</a> serves a fresh Argon2id hash of <code>test123</code>.</p>
            </section>
            <section class="card" id="login">
            <h2>Log in</h2>
            \(formError("login"))
            <form method="post" action="/login" id="login-form">
            <input type="hidden" name="csrf_token" value="\(csrfToken)">
            <label for="login-email">Email</label>
            <input id="login-email" name="email" type="email" autocomplete="email" required value="\(loginEmail)">
            <label for="login-password">Password</label>
            <input id="login-password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit">Log in</button>
            </form>
            </section>
            </div>
            <section class="card" id="public-key">
            <h2>RS256 public key</h2>
            <p>Verify tokens offline with this key, or fetch every key from <a href="/.well-known/jwks.json">/.well-known/jwks.json</a>.</p>
            <pre id="public-key-pem">\(publicKeyPEM)</pre>
            </section>
            <section class="card" id="api">
            <h2>API</h2>
            <p>Send <code>Accept: application/json</code> to get JSON; send JSON bodies with
            <code>Content-Type: application/json</code> (forms work too).</p>
            <table>
            <thead><tr><th>Request</th><th>Body</th><th>Success</th></tr></thead>
            <tbody>
            <tr><td><code>POST /register</code></td><td><code>email</code>, <code>password_hash_url</code>, <code>password</code></td><td>201 <code>{"email","password_hash_url"}</code></td></tr>
            <tr><td><code>POST /login</code></td><td><code>email</code>, <code>password</code></td><td>200 <code>{"token","token_type":"Bearer","email"}</code></td></tr>
            <tr><td><code>POST /validate</code></td><td><code>token</code> or a Bearer header</td><td>200 <code>{"valid":true,"payload":{…}}</code></td></tr>
            <tr><td><code>DELETE /logout</code></td><td>Bearer header, or <code>email</code> + <code>password</code></td><td>200 <code>{"success":true,"email"}</code></td></tr>
            </tbody>
            </table>
            <p>Errors are <code>{"error":"…"}</code> with status 422 (401 for <code>/validate</code> and
            <code>/logout</code>). Token claims: <code>sub</code> and <code>email</code> (your email), <code>iss</code>,
            <code>iat</code>, <code>exp</code> (one hour later), <code>jti</code>, <code>pur</code>, <code>ver</code>.
            Logging out invalidates every token issued before.</p>
            <pre>curl -s \(base)/register -H 'Accept: application/json' -H 'Content-Type: application/json' \\
              -d '{"email":"you@example.com","password_hash_url":"https://example.com/hash.txt","password":"…"}'
            curl -s \(base)/login -H 'Accept: application/json' -H 'Content-Type: application/json' \\
              -d '{"email":"you@example.com","password":"…"}'</pre>
            <p class="hint">Hash URLs must be public <code>http</code> or <code>https</code> addresses; they are fetched at
            registration and at every login (5&nbsp;s, 4&nbsp;KiB, at most 3 redirects). Argon2 costs above 256&nbsp;MiB, 10 passes or
            8 lanes are refused.</p>
            </section>
            """
        return PageFrame(
            title: landing?.title ?? "Remote Argon2 login", heading: header, css: Self.css,
            footer: #"Postern · <a href="/openapi.json">OpenAPI</a>"#
        ).document(main: html)
    }

    /// The API table's JSON bodies break anywhere (its requests never), so that the table fits a phone's width
    /// (390 px) instead of pushing the page wider than the window.
    private static let css = "td code{overflow-wrap:anywhere}td:first-child code{white-space:nowrap}"

    private func formError(_ form: String) -> HTML {
        guard let error, errorForm == form else { return .empty }
        return "<p class=\"flash error\" role=\"alert\" id=\"\(form)-error\">\(error)</p>"
    }
}
