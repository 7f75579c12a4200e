import AuthCrypto
import ComputePool
import Fetch
import Foundation
import HTTP1
import JSON
import JWT
import Metrics
import ServerKit
import Storage

/// Surface 3 of the contract: "Bad Passwords" compatible registration with a remote Argon2 hash URL,
/// RS256 login tokens, validation and logout, as JSON or as a server-rendered page.
///
/// Register the routes with ``register(into:)``; every handler returns its own response shape and
/// never throws to the server.
public final class RemoteHashService: Sendable {
    let configuration: RemoteHashConfiguration
    let keys: JWTKeySet
    /// What a login token must be wherever it is presented: RS256, `pur:"remote-login"`, this issuer, at most
    /// `tokenTTL` long, no `aud`.
    var tokenPolicy: JWTPolicy {
        JWTPolicy(purpose: .remoteLogin, issuer: configuration.issuer, maximumLifetime: configuration.tokenTTL)
    }
    let users: RemoteUserStore
    let pool: WorkerPool
    let verifier: RemoteHashVerifier
    /// Makes an unknown email's login cost what a known one's does.
    let decoy = LoginDecoy()
    let clock: @Sendable () -> Int64
    let cookies: CookieSigner
    /// The one bucket per client (nil when rate limits are off), refusals counted in
    /// `postern_rate_limit_rejections_total{surface="remote-hash",class="public"}`, and the JSON error shape.
    let middleware: SurfaceMiddleware<RateClass>
    let onUnexpectedError: UnexpectedErrorReporter?

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: issuer, public URL, limits and switches.
    ///   - keys: the key set; its active RS256 key signs, and its public half is shown on the page.
    ///   - database: a migrated database (`0004_remote.sql` and `0008_server_secrets.sql`, whose
    ///     `remote-hash.cookies` secret signs the pages' cookies on every instance alike).
    ///   - pool: the worker pool for Argon2 and RSA.
    ///   - fetcher: fetches remote hashes; normally a `Fetcher` built from
    ///     ``RemoteHashConfiguration/fetchConfiguration``.
    ///   - clock: the current Unix time in seconds, for tokens, cookies and `created_at`.
    ///   - monotonicClock: the clock the rate-limit buckets refill by, so that a wall-clock step neither
    ///     refills them early nor stops their refill.
    ///   - metricsFactory: where counters go; nil uses `MetricsSystem.factory` (bootstrap it first).
    ///   - onUnexpectedError: called with any error answered as a bare 500 and the request id, for the
    ///     app's log (the client sees only the generic message).
    /// - Throws: `StorageError` when the cookie key cannot be read or created.
    public init(
        configuration: RemoteHashConfiguration, keys: JWTKeySet, database: any SQLDatabase, pool: WorkerPool,
        fetcher: any URLFetching, clock: @escaping @Sendable () -> Int64,
        monotonicClock: MonotonicClock = .system, metricsFactory: (any MetricsFactory)? = nil,
        onUnexpectedError: UnexpectedErrorReporter? = nil
    ) throws {
        self.configuration = configuration
        self.keys = keys
        self.users = RemoteUserStore(database: database)
        self.pool = pool
        self.verifier = RemoteHashVerifier(
            fetcher: fetcher, pool: pool,
            gate: VerificationGate(
                maxRunning: configuration.maxConcurrentVerifications,
                budgetKiB: configuration.verificationMemoryBudgetKiB),
            maxMemoryKiB: configuration.maxArgon2MemoryKiB, maxIterations: configuration.maxArgon2Iterations,
            maxParallelism: configuration.maxArgon2Parallelism)
        self.clock = clock
        self.cookies = CookieSigner(
            key: try SharedSecrets(database: database).secret(named: "remote-hash.cookies") { SecureRandom.bytes(32) },
            secure: configuration.publicURL.lowercased().hasPrefix("https://"))
        let rate = TokenBucketRate(requests: configuration.requestsPerMinute, perSeconds: 60)
            .share(among: configuration.instances)
        let rejections = Counter(
            label: "postern_rate_limit_rejections_total",
            dimensions: [("surface", "remote-hash"), ("class", "public")],
            factory: metricsFactory ?? MetricsSystem.factory)
        self.middleware = SurfaceMiddleware(
            limiter: configuration.rateLimitsEnabled
                ? RateLimitTable(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) { _ in rate }
                : nil,
            rejected: { _ in rejections.increment() },
            tooManyRequests: { _, _ in
                HTTPResponse.noStoreJSON(.tooManyRequests, ["error": .string(RemoteHashMessage.tooManyRequests)])
            },
            failure: { error in
                // Handlers answer the surface's own failures themselves; what reaches here is unforeseen.
                let failure = RemoteHashFailure.unforeseen(error)
                return (Self.jsonError(failure), failure.unforeseen != nil)
            },
            onUnexpectedError: onUnexpectedError)
        self.onUnexpectedError = onUnexpectedError
    }

    /// The demo page's own path (the hosted service's second path for it): the page alone, where `/` has the
    /// server's landing sections above it.
    public static let pagePath = "/login_test"

    /// Adds `GET /` and `GET /login_test` (the page; `/` with `landing` above the demo when given), `GET
    /// /example.txt`, `GET /up`, `POST /register`, `POST /login`, `POST /validate` and `DELETE /logout` to `router`;
    /// all but `/up` are rate limited per client of the request's context.
    public func register(into router: inout ContextRouter, landing: RemotePageLanding? = nil) {
        let limit = configuration.bodyLimit
        typealias Handler = @Sendable (HTTPRequest, RequestContext) async -> HTTPResponse
        func limitedRoute(_ handler: @escaping Handler) -> ContextRouteHandler {
            .deferred { [self] request, context, _ in
                await middleware.run(.request, context) { await handler(request, context) }
            }
        }
        router.add(.GET, "/", limitedRoute { [self] request, _ in await page(request, landing: landing) })
        router.add(.GET, Self.pagePath, limitedRoute { [self] request, _ in await page(request) })
        router.add(.GET, "/example.txt", limitedRoute { [self] _, _ in await example() })
        router.add(.GET, "/up", .immediate { _, _, _ in HTTPResponse.text(.ok, "OK") })
        router.add(.POST, "/register", bodyLimit: limit, limitedRoute(register))
        router.add(.POST, "/login", bodyLimit: limit, limitedRoute(login))
        router.add(.POST, "/validate", bodyLimit: limit, limitedRoute(validate))
        router.add(.DELETE, "/logout", bodyLimit: limit, limitedRoute(logout))
    }

    // MARK: - Shared steps

    /// The one rate-limit class of the surface: every limited request of a client draws from one bucket.
    enum RateClass: Hashable, Sendable {
        case request
    }

    /// `{"error": message}` with `status`.
    static func jsonError(_ failure: RemoteHashFailure) -> HTTPResponse {
        var response = HTTPResponse.noStoreJSON(failure.status, ["error": .string(failure.message)])
        if failure.status == .serviceUnavailable { response.headers.setRetryAfter(seconds: 1) }
        return response
    }

    /// Reports the unforeseen error behind `failure`, if any, with the request id.
    func report(_ failure: RemoteHashFailure, _ context: RequestContext) {
        if let error = failure.unforeseen { onUnexpectedError?(error, context.requestID) }
    }

    /// The request's fields: a JSON object's string (or number) members, or a urlencoded form.
    /// Nil when a JSON body does not parse as an object.
    func fields(_ request: HTTPRequest) -> [String: String]? {
        if request.contentTypeIsJSON {
            if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) { return [:] }
            guard let body = RequestBody(json: request.body) else { return nil }
            var result: [String: String] = [:]
            for (name, member) in body.members {
                switch member {
                case .string(let text): result[name] = text
                case .integer(let number): result[name] = String(number)
                default: continue
                }
            }
            return result
        }
        if request.contentTypeIsForm { return request.formFields() }
        return [:]
    }

    /// The base page for a request: key, URL, and the CSRF token (reused from the cookie when sane).
    func basePage(_ request: HTTPRequest) -> (RemotePage, setCookie: String?) {
        let existing = request.cookie(CookieSigner.csrfCookie)
        let token = CookieSigner.isWellFormedCSRF(existing) ? existing! : CookieSigner.newCSRFToken()
        let page = RemotePage(
            publicKeyPEM: keys.activeRSAPublicKey?.pem ?? "(no RS256 key configured)",
            publicURL: configuration.publicURL, csrfToken: token)
        return (page, token == existing ? nil : cookies.csrfSetCookie(token))
    }

    /// The page again with `failure` shown on its form `form` (`login`, `register`) and its status, `refill` putting
    /// back what was typed.
    func failurePage(
        _ request: HTTPRequest, _ failure: RemoteHashFailure, form: String, refill: (inout RemotePage) -> Void
    ) -> HTTPResponse {
        var (page, setCookie) = basePage(request)
        page.error = failure.message
        page.errorForm = form
        refill(&page)
        return html(failure.status, page, setCookies: [setCookie])
    }

    /// Renders `page` with `status`, setting the CSRF cookie when it is new.
    func html(_ status: HTTPStatus, _ page: RemotePage, setCookies: [String?]) -> HTTPResponse {
        HTMLPage.response(status, page.render(), setCookies: setCookies.compactMap { $0 })
    }

    /// Whether a post must carry a CSRF token: every body a cross-site page can send without a CORS
    /// preflight, whatever `Accept` says (a no-cors `fetch` may set `Accept: application/json` and a
    /// form body, both CORS-safelisted). Only an `application/json` body is exempt: sending one
    /// cross-site needs a preflight this server never grants.
    func needsCSRF(_ request: HTTPRequest) -> Bool {
        !request.contentTypeIsJSON
    }

    /// Whether an HTML form post carries the CSRF token matching its cookie.
    func csrfValid(_ request: HTTPRequest, _ fields: [String: String]) -> Bool {
        CookieSigner.csrfMatches(cookie: request.cookie(CookieSigner.csrfCookie), field: fields[CookieSigner.csrfField])
    }

    /// The 403 for a form post without a valid CSRF token: `{"error"}` for a client that accepts
    /// JSON (its cookie left alone), else the page with the message and a fresh token.
    /// The form `form` ("register" or "login") again with a fresh CSRF token, keeping what the user typed but the
    /// password.
    func csrfRefused(_ request: HTTPRequest, form: String, _ fields: [String: String]) -> HTTPResponse {
        if request.acceptsJSON { return Self.jsonError(RemoteHashFailure(.forbidden, RemoteHashMessage.csrf)) }
        var (page, _) = basePage(request)
        let token = CookieSigner.newCSRFToken()
        page.csrfToken = token
        page.error = RemoteHashMessage.csrf
        page.errorForm = form
        if form == "register" {
            page.registerEmail = fields["email"] ?? ""
            page.registerURL = fields["password_hash_url"] ?? ""
        } else {
            page.loginEmail = fields["email"] ?? ""
        }
        return html(.forbidden, page, setCookies: [cookies.csrfSetCookie(token)])
    }

    // MARK: - Pages

    /// `GET /` and `GET /login_test`: the page (under `landing` when given), with a one-time flash message when one
    /// is pending.
    func page(_ request: HTTPRequest, landing: RemotePageLanding? = nil) async -> HTTPResponse {
        var (page, setCookie) = basePage(request)
        page.landing = landing
        var cleared: [String?] = []
        let now = clock()
        if let cookie = request.cookie(CookieSigner.flashCookie) {
            page.notice = cookies.signedValue(CookieSigner.flashCookie, cookie, now: now)
            cleared.append(cookies.clearCookie(CookieSigner.flashCookie))
        }
        if let cookie = request.cookie(CookieSigner.loginEmailCookie) {
            page.loginEmail = cookies.signedValue(CookieSigner.loginEmailCookie, cookie, now: now) ?? ""
            cleared.append(cookies.clearCookie(CookieSigner.loginEmailCookie))
        }
        return html(.ok, page, setCookies: [setCookie] + cleared)
    }

    /// `GET /example.txt`: a fresh Argon2id hash of `test123` (m=19456 KiB, t=2, p=1).
    func example() async -> HTTPResponse {
        do {
            let encoded = try await pool.run(.passwordHash) {
                try Argon2.hash(
                    password: Array("test123".utf8), salt: SecureRandom.bytes(16), memoryKiB: 19456, iterations: 2,
                    parallelism: 1)
            }
            var response = HTTPResponse.text(.ok, encoded + "\n")
            response.headers.replaceOrAdd("Cache-Control", "no-store")
            return response
        } catch is WorkerPoolError {
            var response = HTTPResponse.text(.serviceUnavailable, RemoteHashMessage.busy)
            response.headers.setRetryAfter(seconds: 1)
            return response
        } catch {
            return HTTPResponse.text(.internalServerError, RemoteHashMessage.internalError)
        }
    }
}
