import Audit
import AuthCrypto
import BrowserPages
import ClientAddress
import Directory
import EmailAddresses
import HTTP1
import MailStore
import Owners
import SecondFactors
import ServerKit
import Storage

/// The web inbox: people read mail in a browser, server-rendered, at `/inbox`. Owners read every inbox they hold
/// through their owner session; Mail.td accounts (address and password) and Pro users (email and password, or a
/// `tm_pro_` token) sign in here to a session of their own (`SameSite=Strict`); `postern web link` makes a one-time
/// link to one mailbox. What a session may read is asked again on every request, and anything else is a 404.
///
/// Routes (stable, the browser tests drive them): see ``register(into:)``.
public final class WebInboxService: Sendable {
    public let configuration: WebInboxConfiguration
    /// The owners' browser sessions: an owner signed in on `/owner` reads their inboxes here.
    let ownerBrowser: OwnerBrowser
    /// The browser pages' one middleware (page budget per client, 429 and 500 pages), the owner pages' too.
    let pages: PageRoutes
    let ownedInboxes: any OwnedInboxes
    /// Mail.td's accounts and Pro users, and what links rest on; nil signs in owners and the operator's view only.
    let signIns: (any WebInboxSignIn)?
    let mail: MailStore
    /// The sessions and one-time links.
    public let sessions: WebInboxSessions
    let forms: BrowserForms
    let throttle: SignInThrottle
    let images: InlineImageSignature
    /// Whether a Pro user's pages link to the Pro dashboard, which the Mail.td side serves (``proUserRoute(_:)``).
    let linksDashboard: Bool
    /// The dashboard's one-shot notices.
    let flashes: WebInboxFlashes
    /// The live list's open streams, per session and in total.
    let liveStreams: EventStreamLimiter<String>
    let clock: @Sendable () -> Int64
    /// How owners send as their inboxes; nil: nobody composes.
    let sender: (any WebInboxSender)?
    /// What the SMTP sandbox recorded beside its captures; nil: no verdicts are shown.
    let captures: (any WebInboxCaptures)?
    /// Told when a live-list stream opens (`true`) and ends (`false`): the server's gauge of them.
    let onLiveStream: @Sendable (Bool) -> Void
    /// What the sign-in page offers Pro users beside the password (``ProSignInMethods`` serves it).
    let signInOffer: WebInboxSignInOffer
    /// Pro users' second factors (issue 88 item 3), asked for as ``WebInboxConfiguration/proSecondFactor`` says; nil:
    /// none is asked for and `/inbox/two-step` is not found.
    let secondFactors: SecondFactorStore?
    /// The operator's trail: Pro users' second-factor events and second-step sign-ins.
    let audit: AuditTrail
    /// The key the pending second step's cookie is sealed with (``SecondStepCookie``).
    let secondStepKey: [UInt8]

    /// Live-list event streams open on this instance now.
    public var openLiveStreams: Int { liveStreams.openCount }

    /// The session cookie of the web inbox's own sign-ins.
    public static let sessionCookie = "postern_inbox"
    /// The pre-session cookie its sign-in forms' CSRF tokens are bound to.
    public static let csrfCookie = "postern_inbox_csrf"
    /// The sign-in page's provider buttons post here (``ProSignInMethods``).
    public static let providerStartPath = "/inbox/sign-in/provider"

    /// - Parameters:
    ///   - configuration: public URL, lifetimes, page size, backoff.
    ///   - ownerBrowser: the owners' browser sessions (an owner reads their inboxes here).
    ///   - pages: the browser pages' one middleware, shared with the owner pages.
    ///   - ownedInboxes: which inboxes each owner holds.
    ///   - signIns: the Mail.td accounts and Pro users, and what one-time links rest on; nil signs in owners and the
    ///     operator's view of all mail only.
    ///   - mail: the mail store.
    ///   - database: a database with migrations 0008, 0016, 0037 and 0038 applied.
    ///   - clock: Unix seconds.
    ///   - sender: how owners send as their inboxes (JMAP); nil shows no compose or reply.
    ///   - captures: the SMTP sandbox's verdicts of its captures; nil shows none.
    ///   - linksDashboard: whether a Pro user's pages link to the Pro dashboard at ``dashboardPath``, which the Mail.td
    ///     side serves through ``proUserRoute(_:)``.
    ///   - onLiveStream: told when a live-list stream opens (`true`) and ends (`false`).
    ///   - signInOffer: the passkey button and provider buttons of the sign-in page, and where a provider's session
    ///     signs out to (``ProSignInMethods``, mounted beside, serves them); none by default.
    ///   - secondFactors: Pro users' second factors (``SecondFactorTables/proUsers``, migration 0081); nil asks for
    ///     none.
    ///   - audit: the operator's trail of Pro users' second-factor events.
    /// - Throws: storage errors reading or creating the shared keys.
    public init(
        configuration: WebInboxConfiguration, ownerBrowser: OwnerBrowser, pages: PageRoutes,
        ownedInboxes: any OwnedInboxes, signIns: (any WebInboxSignIn)?, mail: MailStore, database: any SQLDatabase,
        clock: @escaping @Sendable () -> Int64, sender: (any WebInboxSender)? = nil,
        captures: (any WebInboxCaptures)? = nil, linksDashboard: Bool = false,
        onLiveStream: @escaping @Sendable (Bool) -> Void = { _ in }, signInOffer: WebInboxSignInOffer = .none,
        secondFactors: SecondFactorStore? = nil, audit: AuditTrail = .disabled
    ) throws {
        self.signInOffer = signInOffer
        self.secondFactors = configuration.proSecondFactor == .off ? nil : secondFactors
        self.audit = audit
        self.onLiveStream = onLiveStream
        self.sender = sender
        self.captures = captures
        self.configuration = configuration
        self.ownerBrowser = ownerBrowser
        self.pages = pages
        self.ownedInboxes = ownedInboxes
        self.signIns = signIns
        self.mail = mail
        self.clock = clock
        sessions = WebInboxSessions(database: database, clock: clock)
        let secrets = SharedSecrets(database: database)
        forms = BrowserForms(
            sessionCookie: Self.sessionCookie, csrfCookie: Self.csrfCookie, sameSite: "Strict",
            key: try secrets.secret(named: "webinbox.csrf") { SecureRandom.bytes(32) },
            secure: configuration.secureCookies)
        images = InlineImageSignature(key: try secrets.secret(named: "webinbox.images") { SecureRandom.bytes(32) })
        secondStepKey = try secrets.secret(named: "webinbox.second-step") { SecureRandom.bytes(32) }
        throttle = SignInThrottle(database: database, backoff: configuration.backoff)
        self.linksDashboard = linksDashboard
        flashes = WebInboxFlashes(
            database: database, key: try secrets.secret(named: "webinbox.flash") { SecureRandom.bytes(32) },
            clock: clock)
        liveStreams = EventStreamLimiter(
            maxTotal: configuration.maxEventStreams, maxPerKey: configuration.maxEventStreamsPerSession)
    }

    /// Adds the routes:
    /// - `GET /inbox` (the mailboxes), `GET|POST /inbox/sign-in`, `POST /inbox/sign-out`;
    /// - `GET|POST /inbox/sign-in/second-step` (a Pro user's code after their password, ``registerSecondStep(into:)``);
    /// - `GET /inbox/link/{token}` (a page with one button) and `POST /inbox/link` (uses the link);
    /// - `GET /inbox/m/{mailbox}` (the list: `position`, `text`, `from`, `subject`, `folder`);
    /// - `GET /inbox/m/{mailbox}/events` (the list's live stream) and `GET /inbox/assets/live.js` (its script);
    /// - `GET /inbox/m/{mailbox}/{id}` (a message), `.../html` (its HTML part, for the frame), `.../raw`,
    ///   `.../attachment/{position}`, `.../cid/{signature}/{cid}` (an inline image of the HTML part);
    /// - `POST /inbox/m/{mailbox}/{id}/read` (`seen` 1 or 0), `POST /inbox/m/{mailbox}/{id}/delete` and
    ///   `POST /inbox/m/{mailbox}/{id}/move` (`folder`, a folder's key);
    /// - owners only: `GET|POST /inbox/m/{mailbox}/compose`, `GET /inbox/m/{mailbox}/{id}/reply`
    ///   (``registerCompose(into:)``).
    public func register(into router: inout ContextRouter) {
        let limit = configuration.bodyLimit
        router.add(.GET, "/inbox", pages.limited { [self] request, _ in try await home(request) })
        router.add(.GET, "/inbox/sign-in", pages.limited { [self] request, _ in try await signInPage(request) })
        router.add(
            .POST, "/inbox/sign-in", bodyLimit: limit,
            pages.limited { [self] request, context in try await signIn(request, client: context.clientKey) })
        router.add(
            .POST, "/inbox/sign-out", bodyLimit: limit,
            pages.limited { [self] request, _ in try await signOut(request) })
        router.add(
            .GET, "/inbox/link/{token}",
            pages.limitedRoute { [self] request, _, parameters in
                linkPage(request, token: parameters["token"] ?? "")
            })
        router.add(
            .POST, "/inbox/link", bodyLimit: limit, pages.limited { [self] request, _ in try await useLink(request) })
        router.add(.GET, "/inbox/m/{mailbox}", page { [self] in try await list($0, $1, $2) })
        registerCompose(into: &router)
        registerLive(into: &router)
        registerSecondStep(into: &router)
        router.add(.GET, "/inbox/m/{mailbox}/{id}", page { [self] in try await message($0, $1, $2) })
        router.add(.GET, "/inbox/m/{mailbox}/{id}/html", page { [self] in try await htmlPart($0, $1, $2) })
        router.add(.GET, "/inbox/m/{mailbox}/{id}/raw", page { [self] in try await rawSource($0, $1, $2) })
        router.add(
            .GET, "/inbox/m/{mailbox}/{id}/attachment/{position}", page { [self] in try await attachment($0, $1, $2) })
        router.add(
            .GET, "/inbox/m/{mailbox}/{id}/cid/{signature}/{cid}",
            pages.limitedRoute { [self] _, _, parameters in try await inlineImage(parameters) })
        router.add(
            .POST, "/inbox/m/{mailbox}/{id}/read", bodyLimit: limit, page { [self] in try await mark($0, $1, $2) })
        router.add(
            .POST, "/inbox/m/{mailbox}/{id}/delete", bodyLimit: limit, page { [self] in try await delete($0, $1, $2) })
        router.add(
            .POST, "/inbox/m/{mailbox}/{id}/move", bodyLimit: limit, page { [self] in try await move($0, $1, $2) })
    }

    // MARK: - Who reads

    /// The viewer of `request`: a web-inbox session whose binding still holds first, then an owner session; nil for
    /// neither. Who may read what is decided here, once for the request.
    func viewer(of request: HTTPRequest) async throws -> WebInboxViewer? {
        if let token = request.cookie(Self.sessionCookie),
            let (principal, binding) = try await sessions.principal(token: token),
            let access = try await access(principal, resting: binding)
        {
            var viewer = WebInboxViewer(
                kind: .session(principal), label: access.label, mailboxes: access.mailboxes, forms: forms,
                session: Self.sessionKey("inbox", token))
            viewer.sandbox = access.sandbox
            viewer.hasDashboard = linksDashboard
            viewer.readOnly = principal == .allMail
            return viewer
        }
        if let (owner, token) = try await ownerBrowser.owner(of: request) {
            let mailboxes = try await ownedInboxes.inboxes(ownerID: owner.id).map(\.address)
            return WebInboxViewer(
                kind: .owner, label: owner.email, mailboxes: mailboxes, forms: ownerBrowser.forms, ownerID: owner.id,
                session: Self.sessionKey("owner", token))
        }
        return nil
    }

    /// A session's key among the live list's streams: its kind and the SHA-256 of its token, never the token.
    static func sessionKey(_ kind: String, _ token: String) -> String {
        kind + ":" + Base64URL.encode(SHA256.hash(Array(token.utf8)))
    }

    /// What session `principal` resting on `binding` may read now; nil when the binding no longer holds.
    private func access(_ principal: WebInboxPrincipal, resting binding: WebInboxSessionBinding) async throws
        -> WebInboxAccess?
    {
        guard principal != .allMail else {
            // The operator's view rests on the link alone (single use, ten minutes) and the session's lifetime. Every
            // mailbox that holds mail: each looked up as a path names it, listed only where a page draws them.
            return binding == .allMail ? WebInboxAccess(label: "All mail (read-only)", mailboxes: []) : nil
        }
        return try await signIns?.access(principal, resting: binding)
    }

    /// What a page's handler gets: the request, its path parameters, the viewer.
    typealias PageHandler = @Sendable (HTTPRequest, RouteParameters, WebInboxViewer) async throws -> HTTPResponse

    /// A route of a signed-in page: the browser pages' rate limit and error page; without a session a 303 to the sign-in
    /// page; a post without the session's CSRF token a 403; a mailbox the viewer may not read a 404.
    func page(_ handler: @escaping PageHandler) -> ContextRouteHandler {
        contextPage { request, _, parameters, viewer in try await handler(request, parameters, viewer) }
    }

    /// ``page(_:)`` for a handler that also reads the request's context (who the client is).
    func contextPage(
        _ handler: @escaping @Sendable (HTTPRequest, RequestContext, RouteParameters, WebInboxViewer) async throws
            -> HTTPResponse
    ) -> ContextRouteHandler {
        pages.limitedRoute { [self] request, context, parameters in
            guard let reader = try await viewer(of: request) else { return HTMLPage.redirect(to: "/inbox/sign-in") }
            if request.method == .POST, !reader.forms.csrfValid(request.formFields(), request) {
                return WebInboxPage.message(.forbidden, "Forbidden", WebInboxPage.csrfMessage)
            }
            guard let path = parameters["mailbox"], let mailbox = try await reader.readable(path, in: mail) else {
                return WebInboxPage.notFound()
            }
            if request.method == .POST, reader.readOnly {
                return WebInboxPage.message(
                    .forbidden, "Read-only", "This view of all mail only reads: nothing here changes.")
            }
            // The handlers read the mailbox as stored, whatever case the path spelled it in.
            let named = ["id", "position"].compactMap { name in parameters[name].map { (name, $0) } }
            return try await handler(request, context, RouteParameters([("mailbox", mailbox)] + named), reader)
        }
    }

    // MARK: - Sign-in

    func home(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard var reader = try await viewer(of: request) else { return HTMLPage.redirect(to: "/inbox/sign-in") }
        if reader.readsAllMail { reader.mailboxes = try await mail.addresses() }
        // A Pro user's home lists their mailboxes even when there is one (their sandbox and dashboard join it).
        if reader.mailboxes.count == 1, let only = reader.mailboxes.first, !reader.isProUser, !reader.readOnly {
            return HTMLPage.redirect(to: WebInboxPage.mailboxPath(only))
        }
        let (token, _) = reader.forms.csrf(for: request)
        return HTMLPage.response(.ok, WebInboxPage.mailboxes(reader, csrf: token))
    }

    func signInPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        // `again=1`: a page that needs a fresh sign-in (the Pro dashboard's app passwords) sent the browser here; the
        // form shows to a signed-in user too and comes back to the dashboard.
        let again = request.queryItem("again") == "1"
        if !again, try await viewer(of: request) != nil { return HTMLPage.redirect(to: "/inbox") }
        var page = signInForm()
        page.again = again
        return form(.ok, request, page)
    }

    /// `kind` `account` (`address`, `password`) or `pro` (`email` and `password`, or `token`): one answer for every
    /// refusal, the sign-in backoff per name and client address.
    func signIn(_ request: HTTPRequest, client: ClientAddressKey) async throws -> HTTPResponse {
        let fields = request.formFields()
        var page = signInForm()
        page.address = fields["address"] ?? ""
        page.email = fields["email"] ?? ""
        guard forms.csrfValid(fields, request) else {
            page.error = WebInboxPage.csrfMessage
            return form(.forbidden, request, page)
        }
        let kind = fields["kind"] ?? "account"
        let password = fields["password"] ?? "", token = fields["token"] ?? ""
        let (name, credentials): (WebInboxSignInName, WebInboxCredentials) =
            switch kind {
            case "pro" where !token.isEmpty: (.apiToken(token), .apiToken(token))
            case "pro": (.proUser(email: page.email), .proUser(email: page.email, password: password))
            default: (.account(address: page.address), .account(address: page.address, password: password))
            }
        var signedIn: (WebInboxPrincipal, WebInboxSessionBinding)?
        // Without the Mail.td side no credential is checked, so none is counted: each is refused.
        if let signIns {
            let attempt = try await throttle.attempt(signIns.backoffKeys(name, client: client), now: clock()) {
                signedIn = try await signIns.signIn(credentials)
                return signedIn != nil
            }
            if case .slowed(let seconds) = attempt {
                page.error = "Too many failed sign-ins. Try again in \(seconds) seconds."
                var response = form(.tooManyRequests, request, page)
                response.headers.setRetryAfter(seconds: Int(seconds))
                return response
            }
        }
        guard let (principal, binding) = signedIn else {
            page.error = "Those credentials are not right."
            return form(.unauthorized, request, page)
        }
        let next = fields["next"] == Self.dashboardPath ? Self.dashboardPath : "/inbox"
        // A Pro user's password (not a pasted token) may ask for a code before the session opens.
        if case .proUser(let id) = principal, kind == "pro", token.isEmpty,
            let secondStep = try await secondStep(proUserID: id, binding: binding, next: next)
        {
            return secondStep
        }
        return HTMLPage.redirect(
            to: next, setCookies: sessionCookies(try await openSession(principal, binding, request)))
    }

    func signOut(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard forms.csrfValid(request.formFields(), request) else {
            return WebInboxPage.message(.forbidden, "Sign out", WebInboxPage.csrfMessage)
        }
        var next: String?
        if let token = request.cookie(Self.sessionCookie) {
            let provider = try await sessions.close(token: token)
            try await flashes.forget(session: token)
            // Postern's session is over whatever follows; with the provider's _LOGOUT on, it is ended there next.
            if let provider { next = await signInOffer.providerLogout(provider) }
        }
        let clear = forms.cookie(Self.sessionCookie, "", maxAge: 0)
        // The provider's end-session page is another site: a 303 there from this form's answer is one the page's CSP
        // (form-action 'self') forbids the browser to follow.
        guard let next else { return HTMLPage.redirect(to: "/inbox/sign-in", setCookies: [clear]) }
        return BrowserPage.moveOn(to: next, title: "Sign out", setCookies: [clear])
    }

    /// A page with one button: a link preview or a mail scanner that fetches the link never uses it up.
    func linkPage(_ request: HTTPRequest, token: String) -> HTTPResponse {
        let (csrf, setCookie) = forms.csrf(for: request)
        return HTMLPage.response(
            .ok, WebInboxPage.link(token: token, csrf: csrf), setCookies: setCookie.map { [$0] } ?? [])
    }

    func useLink(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fields = request.formFields()
        guard forms.csrfValid(fields, request) else {
            return WebInboxPage.message(.forbidden, "Open a mailbox", WebInboxPage.csrfMessage)
        }
        guard let address = try await sessions.useLink(token: fields["token"] ?? "") else {
            return WebInboxPage.message(.notFound, "Open a mailbox", "This link was used already, or it expired.")
        }
        let principal = WebInboxPrincipal(linkAddress: address)
        let binding: WebInboxSessionBinding? =
            switch principal {
            case .link(let address): try await signIns?.linkBinding(address: address)
            default: .allMail
            }
        guard let binding else {
            return WebInboxPage.message(.notFound, "Open a mailbox", "This link was used already, or it expired.")
        }
        return try await startSession(principal, binding, request)
    }

    /// A new session (never the one the browser brought), its cookie, the pre-session cookie dropped; then `/inbox`.
    func startSession(
        _ principal: WebInboxPrincipal, _ binding: WebInboxSessionBinding, _ request: HTTPRequest
    ) async throws -> HTTPResponse {
        HTMLPage.redirect(to: "/inbox", setCookies: sessionCookies(try await openSession(principal, binding, request)))
    }

    /// A new session's token (never the one the browser brought, which is closed).
    /// - Parameter provider: the sign-in provider it comes in through (its name), whose `_LOGOUT` its sign-out follows;
    ///   nil for any other sign-in.
    func openSession(
        _ principal: WebInboxPrincipal, _ binding: WebInboxSessionBinding, _ request: HTTPRequest,
        provider: String? = nil
    ) async throws -> String {
        if let old = request.cookie(Self.sessionCookie) { try await sessions.close(token: old) }
        return try await sessions.open(
            principal, binding: binding, lifetime: configuration.sessionLifetime, provider: provider)
    }

    /// The `Set-Cookie` values of a new session `token`: its cookie, and the pre-session CSRF cookie dropped.
    func sessionCookies(_ token: String) -> [String] {
        [
            forms.cookie(Self.sessionCookie, token, maxAge: configuration.sessionLifetime),
            forms.cookie(Self.csrfCookie, "", maxAge: 0),
        ]
    }

    /// The sign-in page, with the Pro passkey button when Pro users are offered passkeys.
    func signInForm() -> WebInboxSignInForm {
        var page = WebInboxSignInForm(proOpen: signIns != nil)
        page.passkeys = signIns != nil && signInOffer.passkeys
        if signIns != nil { page.providers = signInOffer.providers }
        return page
    }

    func form(_ status: HTTPStatus, _ request: HTTPRequest, _ page: WebInboxSignInForm) -> HTTPResponse {
        let (token, setCookie) = forms.csrf(for: request)
        var page = page
        page.csrfToken = token
        // The passkey button's script, from this origin only (``WebInboxPasskeys/script``).
        return HTMLPage.response(
            status, page.render(), policy: page.passkeys ? .script(.self) : .page,
            setCookies: setCookie.map { [$0] } ?? [])
    }
}
