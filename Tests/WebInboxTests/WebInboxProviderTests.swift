import BrowserPages
import HTTP1
import MailboxAccounts
import Passkeys
import PosternTestSupport
import ServerKit
import SignInMethods
import SignInProviders
import Storage
import Synchronization
import Testing
import WebAuthn

@testable import Fetch
@testable import WebInbox

/// Pro users' sign-in with identity providers (issue 54), the owners' linking rules over Pro users: identities keyed
/// on (issuer, subject); an email a Pro user has asks their password and opens no session (the pre-hijack rule), and
/// `_TRUST_EMAIL` links only into a proven email; `_ALLOW_SIGNUP` makes a Pro user without a password, whom Mail.td's
/// `POST /api/user/login` refuses as a wrong password and who makes `tm_pro_` tokens; the dashboard's "Sign-in
/// methods" links and unlinks, never the last way in. The provider's side (discovery, code, id_token) is
/// SignInFlowTests' and test_oidc_pro.py's: these hand the web inbox verified identities.
@Suite("Web inbox: Pro users' sign-in providers")
struct WebInboxProviderTests {
    static let issuer = "https://sso.example"

    static func provider(
        signUp: Bool = true, trust: Bool = false, domains: [String] = [], logout: Bool = false
    ) -> SignInProvider {
        SignInProvider(
            name: "corp", kind: .oidc(issuer: issuer), clientID: "postern", clientSecret: .init("s"),
            displayName: "Corp ID", scopes: ["openid", "email"], surfaces: [.pro], allowSignUp: signUp,
            trustEmail: trust, allowedDomains: domains, logout: logout)
    }

    static func identity(_ subject: String, _ email: String?, verified: Bool = true) -> ProviderIdentity {
        ProviderIdentity(issuer: issuer, subject: subject, email: email, emailVerified: verified, name: nil)
    }

    /// ``SignInOutcome`` with the Pro user's id named as such.
    enum ProviderOutcome: Equatable {
        case signIn(proUserID: String)
        case linked(proUserID: String, SignInLinkOutcome)
        case confirmPassword(PendingProviderLink)
        case refused(ProviderLinking.Refusal?)
    }

    /// What the one sign-in methods controller, mounted for Pro users, makes of `identity`.
    static func outcome(
        _ harness: WebInboxHarness, _ identity: ProviderIdentity, provider: SignInProvider = provider(),
        linkingFor: String? = nil
    ) async throws -> ProviderOutcome {
        switch try await harness.signInMethods.controller.outcome(
            identity, provider: provider, linkingFor: linkingFor, client: nil)
        {
        case .signIn(let id): .signIn(proUserID: id)
        case .linked(let id, let outcome): .linked(proUserID: id, outcome)
        case .confirmPassword(let pending): .confirmPassword(pending)
        case .refused(let refusal): .refused(refusal)
        }
    }

    static func linked(_ harness: WebInboxHarness, _ subject: String) async throws -> String? {
        try await SignInIdentityStore(database: harness.test.database, clock: { 0 })
            .linkedAccount(surface: .pro, issuer: issuer, subject: subject)
    }

    static func actions(_ harness: WebInboxHarness) async throws -> [String] {
        try await harness.test.database.read { connection in
            try connection.query("SELECT action FROM audit_events WHERE actor_kind = 'pro' ORDER BY id", [])
                .compactMap { $0.text("action") }
        }
    }

    @Test(
        "an email a Pro user has asks their password and links nothing; unverified emails make nobody; _ALLOW_SIGNUP makes a password-less Pro user whom POST /api/user/login refuses as a wrong password",
        arguments: StorageBackend.allCases)
    func linkingRules(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend, provider: Self.provider())
        // The pre-hijack case: a Pro user registered by password with the victim's address (its email unproven).
        let squatter = try await harness.mailbox.accounts.createProUser(email: "victim@example.com", password: "pro-password")
        let asked = try await Self.outcome(harness, Self.identity("victim-sub", "Victim@Example.com"))
        #expect(
            asked
                == .confirmPassword(
                    PendingProviderLinkFixture.make(subject: "victim-sub", email: "victim@example.com", account: squatter.id)))
        #expect(try await Self.linked(harness, "victim-sub") == nil)
        // _TRUST_EMAIL never links into an email nobody proved: the question again.
        #expect(
            try await Self.outcome(harness, Self.identity("victim-sub", "victim@example.com"), provider: Self.provider(trust: true))
                == asked)
        #expect(try await Self.linked(harness, "victim-sub") == nil)
        // An unverified address proves nothing: no question, no sign-up.
        #expect(
            try await Self.outcome(harness, Self.identity("liar", "victim@example.com", verified: false))
                == .refused(.emailNotVerified))
        #expect(
            try await Self.outcome(harness, Self.identity("liar", "fresh@example.com", verified: false))
                == .refused(.emailNotVerified))
        #expect(try await harness.mailbox.accounts.proUserLinkCandidate(email: "fresh@example.com") == nil)
        // Sign-up closed, or a domain not allowed: nobody is made.
        #expect(
            try await Self.outcome(harness, Self.identity("new-sub", "new@example.com"), provider: Self.provider(signUp: false))
                == .refused(.signUpClosed))
        #expect(
            try await Self.outcome(
                harness, Self.identity("new-sub", "new@example.com"), provider: Self.provider(domains: ["corp.example"]))
                == .refused(.domainNotAllowed))

        // _ALLOW_SIGNUP with a verified email: a new Pro user without a password, linked, then signed in again.
        guard case .signIn(let newID) = try await Self.outcome(harness, Self.identity("new-sub", "New@Example.com"))
        else {
            Issue.record("no sign-up")
            return
        }
        let made = try #require(try await harness.mailbox.accounts.proUserLinkCandidate(id: newID))
        #expect(made.email == "new@example.com" && made.emailVerified && !made.hasPassword)
        #expect(try await Self.linked(harness, "new-sub") == newID)
        #expect(try await Self.outcome(harness, Self.identity("new-sub", "changed@example.com")) == .signIn(proUserID: newID))
        let login = await harness.browser().send(
            .POST, "/api/user/login", json: #"{"email":"new@example.com","password":"anything1"}"#)
        #expect(login.status == .unauthorized)
        #expect(login.text == #"{"error":"invalid_credentials"}"#)
        #expect(
            try await Self.actions(harness) == ["pro.signin_failed", "pro.signin_failed", "pro.signin_failed", "pro.signin_failed", "signin.signed_up"])

        // Linking from the dashboard: to the signed-in user; an identity linked to another user stays there.
        #expect(
            try await Self.outcome(harness, Self.identity("victim-sub", "victim@example.com"), linkingFor: squatter.id)
                == .linked(proUserID: squatter.id, .linked))
        #expect(try await Self.linked(harness, "victim-sub") == squatter.id)
        #expect(try await harness.mailbox.accounts.proUserLinkCandidate(id: squatter.id)?.emailVerified == true)
        #expect(
            try await Self.outcome(harness, Self.identity("new-sub", nil), linkingFor: squatter.id)
                == .refused(.linkedToAnother))
        #expect(try await Self.linked(harness, "new-sub") == newID)
        // Now proven, the user's email lets _TRUST_EMAIL link a second identity with it and sign in.
        #expect(
            try await Self.outcome(harness, Self.identity("second-sub", "victim@example.com"), provider: Self.provider(trust: true))
                == .signIn(proUserID: squatter.id))
        #expect(try await Self.linked(harness, "second-sub") == squatter.id)
    }

    @Test(
        "a password-less Pro user's dashboard: no password, the provider linked, its unlink refused as the last way in; a passkey-less password user unlinks",
        arguments: StorageBackend.allCases)
    func dashboard(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend, provider: Self.provider())
        guard case .signIn(let newID) = try await Self.outcome(harness, Self.identity("new-sub", "new@example.com"))
        else {
            Issue.record("no sign-up")
            return
        }
        // They sign in to the web inbox with a tm_pro_ token (as Mail.td's docs say of provider sign-ups).
        let token = try await harness.mailbox.accounts.createAPIToken(proUserID: newID, name: "web", client: nil).token
        #expect(token.hasPrefix("tm_pro_"))
        let browser = harness.browser()
        #expect(try await browser.signIn(["kind": "pro", "token": token]).status == .seeOther)
        var page = await browser.send(.GET, "/inbox/dashboard")
        #expect(page.text.contains(#"id="sign-in-methods""#) && page.text.contains("Password: none"))
        #expect(page.text.contains(#"id="identity-corp""#) && page.text.contains("new@example.com"))
        let csrf = try #require(Browser.csrf(in: page))
        let unlink = ["csrf_token": csrf, "provider": "corp", "issuer": Self.issuer, "subject": "new-sub"]
        #expect(await browser.send(.POST, "/inbox/sign-in-methods/unlink", form: unlink).status == .seeOther)
        page = await browser.send(.GET, "/inbox/dashboard")
        #expect(page.text.contains("your only way to sign in") && page.text.contains(#"id="identity-corp""#))
        #expect(try await Self.linked(harness, "new-sub") == newID)

        // A Pro user with a password links (from the dashboard) and unlinks; the unlink is on the trail.
        let (adaID, _) = try await harness.proLogin("ada@example.com")
        #expect(
            try await Self.outcome(harness, Self.identity("ada-sub", "ada@example.com"), linkingFor: adaID)
                == .linked(proUserID: adaID, .linked))
        let ada = harness.browser()
        #expect(
            try await ada.signIn(["kind": "pro", "email": "ada@example.com", "password": "pro-password"]).status
                == .seeOther)
        page = await ada.send(.GET, "/inbox/dashboard")
        #expect(page.text.contains("Password: set") && page.text.contains(#"id="identity-corp""#))
        let adaCSRF = try #require(Browser.csrf(in: page))
        // Another user's identity is not theirs to unlink.
        let foreign = ["csrf_token": adaCSRF, "provider": "corp", "issuer": Self.issuer, "subject": "new-sub"]
        _ = await ada.send(.POST, "/inbox/sign-in-methods/unlink", form: foreign)
        #expect(try await Self.linked(harness, "new-sub") == newID)
        let own = ["csrf_token": adaCSRF, "provider": "corp", "issuer": Self.issuer, "subject": "ada-sub"]
        #expect(await ada.send(.POST, "/inbox/sign-in-methods/unlink", form: own).status == .seeOther)
        page = await ada.send(.GET, "/inbox/dashboard")
        #expect(page.text.contains("Sign-in provider unlinked") && !page.text.contains(#"id="identity-corp""#))
        #expect(page.text.contains(#"id="link-corp""#))
        #expect(try await Self.linked(harness, "ada-sub") == nil)
        #expect(try await Self.actions(harness).suffix(2) == ["signin.linked", "signin.unlinked"])
        // The sign-in page shows the provider's button.
        let signInPage = await harness.browser().send(.GET, "/inbox/sign-in")
        #expect(signInPage.text.contains(#"id="provider-corp""#) && signInPage.text.contains("Sign in with Corp ID"))
    }

    @Test(
        "a password-less Pro user with a passkey and a provider: either goes while the other stays, the last one stays",
        arguments: StorageBackend.allCases)
    func lastWayCountsPasskeys(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend, relyingParty: WebInboxPasskeyTests.party, provider: Self.provider())
        guard case .signIn(let newID) = try await Self.outcome(harness, Self.identity("new-sub", "new@example.com"))
        else {
            Issue.record("no sign-up")
            return
        }
        let token = try await harness.mailbox.accounts.createAPIToken(proUserID: newID, name: "web", client: nil).token
        let browser = harness.browser()
        #expect(try await browser.signIn(["kind": "pro", "token": token]).status == .seeOther)
        try await WebInboxPasskeyTests.register(browser, try SoftwareAuthenticator())
        let store = PasskeyStore(database: harness.test.database)
        let passkey = try #require(try await store.credentials(of: .proUser(newID)).first)
        // The passkey stays behind: the provider may go.
        var csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/dashboard")))
        _ = await browser.send(
            .POST, "/inbox/sign-in-methods/unlink",
            form: ["csrf_token": csrf, "provider": "corp", "issuer": Self.issuer, "subject": "new-sub"])
        #expect(try await Self.linked(harness, "new-sub") == nil)
        // Now the passkey is the only way in: it stays.
        csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/dashboard")))
        _ = await browser.send(.POST, "/inbox/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect((await browser.send(.GET, "/inbox/dashboard")).text.contains("your only way to sign in"))
        #expect(try await store.credentials(of: .proUser(newID)).count == 1)
        // Linked again, the provider lets the passkey go.
        #expect(
            try await Self.outcome(harness, Self.identity("new-sub", "new@example.com"), linkingFor: newID)
                == .linked(proUserID: newID, .linked))
        _ = await browser.send(.POST, "/inbox/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect(try await store.credentials(of: .proUser(newID)).isEmpty)
    }
}

extension WebInboxProviderTests {
    /// The sign-out form's answer for `browser`, posted with the CSRF token of its dashboard.
    static func signOut(_ browser: Browser) async throws -> HTTPResponse {
        let csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/dashboard")))
        return await browser.send(.POST, "/inbox/sign-out", form: ["csrf_token": csrf])
    }

    @Test(
        "_LOGOUT: a provider's Pro session keeps the provider, and its sign-out ends Postern's session, then moves on to the provider's end_session_endpoint; a password session signs out at Postern only",
        arguments: StorageBackend.allCases)
    func providerLogout(_ backend: StorageBackend) async throws {
        let discovery = DiscoveryOnlyProvider(issuer: Self.issuer, endSession: Self.issuer + "/logout?realm=pro")
        let harness = try WebInboxHarness(backend, provider: Self.provider(logout: true), transport: discovery)
        guard case .signIn(let newID) = try await Self.outcome(harness, Self.identity("new-sub", "new@example.com"))
        else {
            Issue.record("no sign-up")
            return
        }
        let request = HTTPRequest(
            method: .GET, target: "/oidc/callback", version: .http1_1, headers: HTTPHeaders(), body: [],
            remoteAddress: "192.0.2.9", requestID: "webinbox-provider-test")
        let opened = try await harness.signInMethods.controller.session(
            newID, provider: Self.provider(logout: true), returnTo: "/inbox", request, client: nil, setCookies: [])
        let cookie = try #require(
            opened.headers.values("Set-Cookie").first { $0.hasPrefix(WebInboxService.sessionCookie + "=") })
        let token = String(cookie.dropFirst(WebInboxService.sessionCookie.count + 1).prefix { $0 != ";" })
        let browser = harness.browser()
        browser.jar.cookies[WebInboxService.sessionCookie] = token
        #expect((await browser.send(.GET, "/inbox/dashboard")).status == .ok)

        let answer = try await Self.signOut(browser)
        let endSession =
            "https://sso.example/logout?realm=pro&client_id=postern&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2F"
        #expect(answer.status == .ok)
        #expect(answer.text.contains(#"<meta http-equiv="refresh" content="0; url=\#(HTMLText.escape(endSession))">"#))
        #expect(browser.jar.cookies[WebInboxService.sessionCookie] == nil)
        // Postern's session ended first, and for good.
        #expect(try await harness.service.sessions.principal(token: token) == nil)
        #expect(try await harness.service.sessions.close(token: token) == nil)
        #expect(discovery.asked.contains(Self.issuer + "/.well-known/openid-configuration"))

        // A password session of a Pro user signs out at Postern only.
        _ = try await harness.proLogin("ada@example.com")
        let ada = harness.browser()
        #expect(
            try await ada.signIn(["kind": "pro", "email": "ada@example.com", "password": "pro-password"]).status
                == .seeOther)
        let local = try await Self.signOut(ada)
        #expect(local.status == .seeOther && local.headers["Location"] == "/inbox/sign-in")
        #expect(ada.jar.cookies[WebInboxService.sessionCookie] == nil)
        // So does a session of a provider no longer configured.
        let (principal, binding) = try #require(try await harness.service.signIns?.signIn(.provider(proUserID: newID)))
        let orphan = try await harness.service.sessions.open(principal, binding: binding, lifetime: 600, provider: "gone")
        let stranded = harness.browser()
        stranded.jar.cookies[WebInboxService.sessionCookie] = orphan
        let gone = try await Self.signOut(stranded)
        #expect(gone.status == .seeOther && gone.headers["Location"] == "/inbox/sign-in")
        #expect(try await harness.service.sessions.principal(token: orphan) == nil)
    }
}

/// A provider that answers its discovery document only (with an `end_session_endpoint`), and records what was asked.
final class DiscoveryOnlyProvider: ProviderTransport {
    let document: String
    let issuer: String
    private let requests = Mutex<[String]>([])

    init(issuer: String, endSession: String) {
        self.issuer = issuer
        document = """
            {"issuer":"\(issuer)","authorization_endpoint":"\(issuer)/authorize","token_endpoint":"\(issuer)/token",\
            "jwks_uri":"\(issuer)/jwks","response_types_supported":["code"],"end_session_endpoint":"\(endSession)"}
            """
    }

    var asked: [String] { requests.withLock { $0 } }

    func fetch(_ url: String) async throws(FetchError) -> FetchResponse {
        requests.withLock { $0.append(url) }
        guard url == issuer + "/.well-known/openid-configuration" else { throw .badStatus(404) }
        let head = ResponseHead(
            status: 200, minorVersion: 1,
            headers: [ResponseHead.HeaderField(name: "Content-Type", value: "application/json")])
        return FetchResponse(
            status: 200, head: head, body: Array(document.utf8), url: try FetchURL(parsing: url), redirects: 0)
    }

    func get(_ url: String, headers: [(String, String)]) async throws(FetchError) -> FetchResponse {
        try await fetch(url)
    }

    func post(
        _ url: String, headers: [(String, String)], body: [UInt8], readingBody: Bool, startWithin: Duration
    ) async throws(FetchError) -> FetchResponse { throw FetchError.invalidURL }
}

/// The pending link the password question carries, as the tests expect it.
enum PendingProviderLinkFixture {
    static func make(subject: String, email: String, account: String) -> PendingProviderLink {
        PendingProviderLink(
            provider: "corp", issuer: WebInboxProviderTests.issuer, subject: subject, email: email, account: account)
    }
}
