import Audit
import AuthCrypto
import BrowserPages
import ClientAddress
import ComputePool
import CustomDomains
import DNS
import HTTP1
import Metrics
import Passkeys
import PasswordHashing
import SecondFactors
import ServerKit
import SignInMethods
import SignInProviders
import Storage
import WebAuthn

/// The owners' browser side: sign-in, sign-up (when open) and sign-out at `/owner/...`, the sessions the other
/// owner-facing pages (the owner pages, the authorization server's consent) read through ``browser``.
public final class OwnerService: Sendable {
    public let configuration: OwnersConfiguration
    /// The owners table.
    public let owners: OwnerStore
    /// Cookies, sessions and CSRF, shared with every owner-facing page.
    public let browser: OwnerBrowser
    /// Owners' second factor (TOTP and recovery codes, issue 88), asked for as ``OwnersConfiguration/secondFactor``
    /// says.
    public let secondFactors: OwnerSecondFactors
    /// Owners' custom domains (Atomic custom domains).
    public let domains: OwnerDomains
    /// Where sign-ins and the owner pages' changes are recorded (``AuditTrail``); disabled unless given.
    public let audit: AuditTrail
    /// The browser pages' one middleware (page budget per client, 429 and 500 pages), shared with the web inbox.
    public let pages: PageRoutes
    /// New owners per client address (``OwnersConfiguration/signUpsPerHour``); nil without that limit.
    let signUps: RateLimitTable<SignUpClass>?
    let signIns: @Sendable (String) -> Void
    /// Owners' passkeys (listed, renamed and removed whether or not ceremonies run here); nil: no passkey is shown.
    public let passkeyStore: PasskeyStore?
    /// The passkey ceremonies; nil when the server has no RP ID (a public URL on an IP address): no passkey is offered.
    public let passkeys: PasskeyCeremonies?
    /// The passkey sign-in's backoff, in its own namespace of the owners' table (``SignInThrottle``).
    let passkeyThrottle: SignInThrottle
    /// `postern_passkey_ceremonies_total`: by ceremony and result.
    let passkeyCeremonies: @Sendable (_ ceremony: String, _ result: String) -> Void
    /// The sign-in providers whose buttons the sign-in page shows (issue 54), in configured order; also the ones
    /// "Sign-in methods" offers to link.
    let signInButtons: [SignInProvider]
    /// The owners' linked provider identities (issue 54): shown under "Sign-in methods" and counted as ways in
    /// (``SignInWays``); nil (a service given none) shows and counts none.
    public let identities: SignInIdentityStore?
    /// Where signing out of a session a provider opened sends the browser next: the provider's end-session URL when
    /// its `_LOGOUT` is on (``SignInProviders/SignInFlow/endSessionURL(provider:)``), else nil (the sign-in page).
    let providerLogout: @Sendable (_ provider: String) async -> String?

    enum SignUpClass: Hashable, Sendable { case signUp }

    /// - Parameters:
    ///   - configuration: sign-up switch, session lifetime, costs, limits.
    ///   - database: a database with migrations 0008 (the shared CSRF key) and 0016 applied.
    ///   - pool: the worker pool Argon2id runs on.
    ///   - resolver: the runtime's one DNS resolver, which custom domains are checked with.
    ///   - customDomains: the runtime's one custom-domain model (every surface's mailboxes, the DKIM keys).
    ///   - clock: Unix seconds.
    ///   - monotonicClock: what the rate-limit buckets refill by.
    ///   - metricsFactory: where counters go; nil uses `MetricsSystem.factory`.
    ///   - onUnexpectedError: told about any error answered as a bare 500, with the request id (when `pages` is nil).
    ///   - pages: the runtime's one middleware of the browser pages; nil (a service on its own) makes one of the
    ///     configuration's page budget.
    ///   - audit: where sign-ins, failed sign-ins and the owner pages' changes are recorded.
    ///   - passkeyStore: the passkeys (the runtime's); nil shows none and offers none.
    ///   - relyingParty: the passkeys' relying party (``WebAuthn/WebAuthnConfiguration``); nil offers no passkey
    ///     ceremony (passkeys registered before are still listed and may be removed).
    ///   - signInButtons: the sign-in providers whose buttons `/owner/sign-in` shows (``OwnerProviderPages``).
    ///   - identities: the linked provider identities (the runtime's), shown and counted as ways in; nil counts none.
    ///   - providerLogout: the end-session URL a provider's session signs out to, by the provider's name; nil (the
    ///     default) for none.
    ///   - secondFactors: the owners' second factors, the shared store on ``SecondFactorTables/owners`` (its sealing
    ///     the runtime's: PostgreSQL's `POSTERN_KEY_SECRET`, SQLite's none), built by the composition root.
    /// - Throws: storage errors reading or creating the CSRF key.
    public init(
        configuration: OwnersConfiguration, database: any SQLDatabase, pool: WorkerPool,
        resolver: DNSResolver, customDomains: CustomDomains, clock: @escaping @Sendable () -> Int64,
        monotonicClock: MonotonicClock = .system,
        metricsFactory: (any MetricsFactory)? = nil, onUnexpectedError: UnexpectedErrorReporter? = nil,
        audit: AuditTrail = .disabled, pages: PageRoutes? = nil, passkeyStore: PasskeyStore? = nil,
        relyingParty: RelyingParty? = nil, signInButtons: [SignInProvider] = [], identities: SignInIdentityStore? = nil,
        providerLogout: @escaping @Sendable (_ provider: String) async -> String? = { _ in nil },
        secondFactors: SecondFactorStore
    ) throws {
        self.configuration = configuration
        self.providerLogout = providerLogout
        self.signInButtons = signInButtons
        self.audit = audit
        owners = OwnerStore(
            database: database, hasher: PasswordHasher(parameters: configuration.argon2, pool: pool),
            backoff: configuration.backoff, clock: clock)
        browser = OwnerBrowser(
            sessions: OwnerSessions(database: database, lifetime: configuration.sessionLifetime, clock: clock),
            key: try SharedSecrets(database: database).secret(named: "owners.csrf") { SecureRandom.bytes(32) },
            secure: configuration.secureCookies)
        self.secondFactors = OwnerSecondFactors(secondFactors)
        domains = OwnerDomains(
            claims: customDomains, resolver: resolver,
            mxHost: configuration.mxHost, served: configuration.servedDomains, limit: configuration.maxDomains,
            clock: clock)
        let factory = metricsFactory ?? MetricsSystem.factory
        signIns = { result in
            Counter(label: "postern_owner_signins_total", dimensions: [("result", result)], factory: factory).increment()
        }
        passkeyCeremonies = { ceremony, result in
            Counter(
                label: "postern_passkey_ceremonies_total", dimensions: [("ceremony", ceremony), ("result", result)],
                factory: factory
            ).increment()
        }
        self.passkeyStore = passkeyStore
        self.identities = identities
        if let passkeyStore, let relyingParty {
            passkeys = PasskeyCeremonies(
                party: relyingParty, store: passkeyStore,
                challenges: PasskeyChallenges(database: database, limits: configuration.signInCeremonies))
        } else {
            passkeys = nil
        }
        passkeyThrottle = SignInThrottle(database: database, backoff: configuration.backoff)
        let signUpRate = TokenBucketRate(requests: configuration.signUpsPerHour, perSeconds: 3600)
            .share(among: configuration.instances)
        signUps =
            configuration.signUpsPerHour > 0
            ? RateLimitTable(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) { _ in signUpRate }
            : nil
        self.pages =
            pages
            ?? PageRoutes(
                requestsPerMinute: configuration.requestsPerMinute, instances: configuration.instances,
                tableCapacity: configuration.rateLimitTableCapacity, enabled: configuration.rateLimitsEnabled,
                monotonicClock: monotonicClock, metricsFactory: factory, onUnexpectedError: onUnexpectedError)
    }

    /// Adds `GET|POST /owner/sign-in`, `POST /owner/sign-out` and, when sign-up is open, `GET|POST /owner/sign-up`.
    public func register(into router: inout ContextRouter) {
        let limit = configuration.bodyLimit
        router.add(.GET, "/owner/sign-in", pages.limited { [self] request, _ in try await signInPage(request) })
        router.add(
            .POST, "/owner/sign-in", bodyLimit: limit,
            pages.limited { [self] request, context in
                try await signIn(request, client: context.clientKey, address: context.clientAddress?.description)
            })
        router.add(.POST, "/owner/sign-out", bodyLimit: limit, pages.limited { [self] request, _ in try await signOut(request) })
        registerPasskeys(into: &router)
        registerSecondStep(into: &router)
        if configuration.signUpOpen {
            router.add(.GET, "/owner/sign-up", pages.limited { [self] request, _ in try await signUpPage(request) })
            router.add(
                .POST, "/owner/sign-up", bodyLimit: limit,
                pages.limited { [self] request, context in try await signUp(request, client: context.clientKey) })
        }
    }

    // MARK: - Sign-in

    func signInPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let next = Self.localPath(request.queryItem("next"))
        // `again`: a page that needs a fresh sign-in (`again=1`, ``proofPath(next:)``, which says why) or a relying
        // party that asked for a new sign-in (`again=login`: OpenID `prompt=login`, `max_age`): the form even with a
        // session, whose sign-in then replaces it.
        let again = request.queryItem(Self.againParameter)
        if again == nil, try await browser.owner(of: request) != nil { return HTMLPage.redirect(to: next) }
        var page = signInForm(next: next)
        if again == "1" { page.notice = OwnerMessage.signInAgain }
        if let email = request.queryItem("email"), !AuditText.containsControl(email), email.utf8.count <= 254 {
            page.email = email
        }
        return form(.ok, request, page)
    }

    /// - Parameter address: the client's address, for the audit trail.
    func signIn(_ request: HTTPRequest, client: ClientAddressKey, address: String? = nil) async throws -> HTTPResponse {
        let fields = request.formFields()
        var page = signInForm(next: Self.localPath(fields["next"]))
        page.email = fields["email"] ?? ""
        guard browser.csrfValid(fields, request) else {
            page.error = OwnerMessage.csrf
            return form(.forbidden, request, page)
        }
        let email = fields["email"] ?? "", password = fields["password"] ?? ""
        guard !AuditText.containsControl(email) else {
            // No address has one: refused before the throttle, recorded escaped, never echoed into the form.
            signIns("refused")
            await recordFailedSignIn(email: email, client: address, reason: "invalid_email")
            page.email = ""
            page.error = OwnerMessage.wrongCredentials
            return form(.unauthorized, request, page)
        }
        switch try await owners.signIn(email: email, password: password, client: client) {
        case .signedIn(let owner):
            // With a second factor on (or required), the session waits for a code (``OwnerSecondStepPending``).
            if let secondStep = try await secondStep(owner, by: .password, provider: nil, next: page.next) {
                return secondStep
            }
            signIns("success")
            let response = try await startSession(owner, request, next: page.next, methods: .password)
            await audit.owner(owner.id, .ownerSignIn, target: owner.email, client: address)
            return response
        case .refused:
            signIns("refused")
            await recordFailedSignIn(email: email, client: address, reason: "refused")
            page.error = OwnerMessage.wrongCredentials
            return form(.unauthorized, request, page)
        case .slowDown(let retryAfter):
            signIns("slowed")
            await recordFailedSignIn(email: email, client: address, reason: "slowed")
            page.error = OwnerMessage.slowDown(retryAfter)
            var response = form(.tooManyRequests, request, page)
            response.headers.setRetryAfter(seconds: Int(retryAfter))
            return response
        }
    }

    func signOut(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard browser.csrfValid(request.formFields(), request) else {
            return BrowserPage.message(.forbidden, "Sign out", OwnerMessage.csrf)
        }
        var next: String?
        if let token = request.cookie(OwnerBrowser.sessionCookie) {
            let provider = try await browser.sessions.close(token: token)
            // The relying parties this session signed in to are told (OpenID back-channel logout).
            await browser.signOuts.signedOut(token: token)
            // Postern's session is over whatever follows; with the provider's _LOGOUT on, it is ended there next.
            if let provider { next = await providerLogout(provider) }
        }
        let clear = browser.clearCookie(OwnerBrowser.sessionCookie)
        // The provider's end-session page is another site: a 303 there from this form's answer is one the page's CSP
        // (form-action 'self') forbids the browser to follow.
        guard let next else { return HTMLPage.redirect(to: "/owner/sign-in", setCookies: [clear]) }
        return BrowserPage.moveOn(to: next, title: "Sign out", setCookies: [clear])
    }

    /// `owner.signin_failed` on the operator's trail (no owner id: the email typed may be nobody's, and a stranger's
    /// typing is not an owner's activity). The email typed, cut to 320 bytes and its control characters escaped
    /// (``AuditText/escaped(_:)``: the stored row forges no line wherever it is read), is the actor; never the
    /// password.
    private func recordFailedSignIn(email: String, client: String?, reason: String) async {
        let typed = AuditText.escaped(String(decoding: email.utf8.prefix(320), as: UTF8.self))
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .owner, actorID: typed, ownerID: nil, action: .ownerSignInFailed, target: typed,
                clientAddress: client, details: AuditDetails.json(["reason": reason]))
        }
    }

    // MARK: - Sign-up

    func signUpPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        var page = OwnerSignInForm(action: "/owner/sign-up", next: Self.localPath(request.queryItem("next")), signUpOpen: true)
        page.signingUp = true
        return form(.ok, request, page)
    }

    func signUp(_ request: HTTPRequest, client: ClientAddressKey) async throws -> HTTPResponse {
        let fields = request.formFields()
        var page = OwnerSignInForm(action: "/owner/sign-up", next: Self.localPath(fields["next"]), signUpOpen: true)
        page.signingUp = true
        page.email = fields["email"] ?? ""
        guard browser.csrfValid(fields, request) else {
            page.error = OwnerMessage.csrf
            return form(.forbidden, request, page)
        }
        if let decision = signUps?.take(.signUp, for: client), !decision.allowed {
            page.error = OwnerMessage.tooManySignUps
            var response = form(.tooManyRequests, request, page)
            response.headers.setRetryAfter(decision)
            return response
        }
        do {
            let owner = try await owners.create(email: fields["email"] ?? "", password: fields["password"] ?? "")
            return try await startSession(owner, request, next: page.next, methods: .password)
        } catch OwnerError.emailTaken {
            // Answered as a new account is, with no words that tell it from one, and charged as one (the sign-up is
            // not given back): whether an email has an account costs a sign-up to learn, as making one does.
            return try await endSession(request, next: page.next)
        } catch let error as OwnerError {
            signUps?.giveBack(.signUp, for: client)  // no owner was made: the form costs nothing
            page.error = OwnerMessage.words(for: error)
            return form(.unprocessableEntity, request, page)
        }
    }

    // MARK: - Shared steps

    /// A new session (never the one the browser brought: no fixation), its cookie, and the pre-session CSRF cookie
    /// dropped; then `next`.
    /// - Parameters:
    ///   - extra: other `Set-Cookie` values to send (a provider sign-in's pre-session cookie dropped).
    ///   - methods: how the session was earned (``OwnerSessions/methods(token:)``).
    func startSession(
        _ owner: Owner, _ request: HTTPRequest, next: String, setCookies extra: [String] = [], provider: String? = nil,
        methods: AuthenticationMethods
    ) async throws -> HTTPResponse {
        HTMLPage.redirect(
            to: next,
            setCookies: try await openSession(owner, request, provider: provider, methods: methods) + extra)
    }

    /// Opens a new session of `owner` (closing the one `request` brought): the `Set-Cookie` values that carry it and
    /// drop the pre-session CSRF cookie.
    func openSession(_ owner: Owner, _ request: HTTPRequest, provider: String?, methods: AuthenticationMethods)
        async throws -> [String]
    {
        if let old = request.cookie(OwnerBrowser.sessionCookie) { try await browser.sessions.close(token: old) }
        let token = try await browser.sessions.open(ownerID: owner.id, provider: provider, methods: methods)
        return [
            browser.sessionCookie(token, lifetime: configuration.sessionLifetime),
            browser.clearCookie(OwnerBrowser.csrfCookie),
        ]
    }

    /// What a sign-up with a taken email answers: `next`, as a new account's, with the cookies a new session would
    /// replace (the session the browser brought, closed, and the pre-session CSRF cookie) dropped, and no session:
    /// the browser lands on the sign-in page, where the email's owner signs in.
    func endSession(_ request: HTTPRequest, next: String) async throws -> HTTPResponse {
        if let old = request.cookie(OwnerBrowser.sessionCookie) { try await browser.sessions.close(token: old) }
        return HTMLPage.redirect(
            to: next,
            setCookies: [
                browser.clearCookie(OwnerBrowser.sessionCookie), browser.clearCookie(OwnerBrowser.csrfCookie),
            ])
    }

    func form(_ status: HTTPStatus, _ request: HTTPRequest, _ page: OwnerSignInForm) -> HTTPResponse {
        let (token, setCookie) = browser.csrf(for: request)
        var page = page
        page.csrfToken = token
        if !page.signingUp { page.providers = signInButtons }
        // The passkey button's script, from this origin only (``OwnerPasskeyScript``).
        return HTMLPage.response(
            status, page.render(), policy: page.passkeys ? .script(.self) : .page,
            setCookies: setCookie.map { [$0] } ?? [])
    }

    /// The sign-in form coming back to `next`, with the passkey button when passkeys are offered.
    func signInForm(next: String) -> OwnerSignInForm {
        var page = OwnerSignInForm(action: "/owner/sign-in", next: next, signUpOpen: configuration.signUpOpen)
        page.passkeys = passkeys != nil
        return page
    }

    /// The sign-in page that comes back to `next` (a local path, see ``localPath(_:)``) once the owner has signed
    /// in: every page that needs an owner, the authorization server's included, sends the browser here.
    public static func signInPath(next: String) -> String {
        "/owner/sign-in?next=" + PercentEncoding.encode(next)
    }

    /// ``signInPath(next:)`` for a relying party's sign-in (issue 88): with `again`, the form is shown even to a
    /// signed-in browser (a new sign-in is asked for); `email` fills the form's email (OpenID `login_hint`).
    public static func signInPath(next: String, again: Bool, email: String?) -> String {
        signInPath(next: next) + (again ? "&\(againParameter)=login" : "")
            + (email.map { "&email=" + PercentEncoding.encode($0) } ?? "")
    }

    /// `next` when it is a path on this server (one leading `/`, no `//` or `\`, printable ASCII), else `/owner`: a
    /// sign-in never redirects off-site.
    public static func localPath(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.hasPrefix("/\\"), next.utf8.count <= 4096,
            next.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") })
        else { return "/owner" }
        return next
    }
}
