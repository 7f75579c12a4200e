import Audit
import AuthCrypto
import BrowserPages
import ComputePool
import Directory
import HTTP1
import JSON
import JWT
import Metrics
import OAuthGrants
import Owners
import ServerKit
import Storage

/// The OAuth 2.1 authorization server for apps (`api-docs/oauth-mcp-contract.md` section 1;
/// docs/api/oauth.md): RFC 8414 metadata, RFC 7591 registration, the authorization endpoint and its consent
/// page, the token endpoint (authorization codes with PKCE S256, rotating refresh tokens, and client credentials for
/// the operator's confidential clients), RFC 7009 revocation and RFC 7662 introspection, every one of the last three
/// on the one client authentication (``OAuthClientCredential``). Access tokens are RFC 9068 `at+jwt`, EdDSA, signed on
/// the worker pool's signing lane.
///
/// Create it once at start, after the metrics system is bootstrapped; add its routes with ``register(into:)``.
public final class OAuthService: Sendable {
    /// The configuration it was created with.
    public let configuration: OAuthConfiguration
    let keys: JWTKeySet
    /// Introspection's check of access tokens, the resource side's (``OAuthConfiguration/verifiedTokenCache``
    /// verified tokens kept; live grants kept where revocations reach the cache).
    let accessTokens: OAuthTokenVerifier
    let clients: OAuthClientStore
    /// Registered clients and, when on, metadata-document clients.
    let directory: OAuthClientDirectory
    /// Grants, codes and tokens.
    public let grants: OAuthGrantStore
    /// The operator's confidential clients.
    let confidentialClients: OAuthConfidentialClients
    /// The keys of confidential clients that publish them at a `jwks_uri`.
    let clientKeys: OAuthClientKeys
    /// How introspection recognises capability tokens; nil: it does not.
    let capabilityTokens: OAuthCapabilityTokens?
    /// The sign-in providers trusted to assert identities (ID-JAG); nil: none (the JWT bearer grant is off).
    let identityIssuers: (any OAuthIdentityIssuers)?
    let pool: WorkerPool
    let browser: OwnerBrowser
    let inboxes: any OwnedInboxes
    let clock: @Sendable () -> Int64
    /// Where approvals and apps' own revocations are recorded.
    let audit: AuditTrail
    /// Whether ``audit`` is a table of the grants' database: a client credentials grant then writes its line in its
    /// own write (one commit, not two).
    let auditsInGrantWrites: Bool
    let metrics: OAuthMetrics
    /// The key the consent form's copy of the authorization request is signed with (shared by every instance).
    let consentKey: [UInt8]
    let middleware: SurfaceMiddleware<RateClass>
    /// The metadata document, built once (with the OpenID Provider's members when it is on: the RFC 8414 document and
    /// `/.well-known/openid-configuration` are the one document).
    let metadata: JSONValue
    /// The OpenID Provider of the operator's relying parties (issue 88); nil: off.
    let openID: OIDCProvider?

    /// What a request draws on: registrations have their own hourly bucket per address, introspection (a resource
    /// server's, one address for many tokens) its own per minute.
    enum RateClass: Hashable, Sendable, CaseIterable {
        case register
        case endpoint
        case introspect
    }

    /// - Parameters:
    ///   - configuration: issuer, lifetimes, limits.
    ///   - keys: the key set whose active Ed25519 key signs access tokens.
    ///   - database: a database with migrations 0008 (shared secrets) and 0016 applied.
    ///   - grants: the grant model (grants, codes, refresh and access tokens), its revocations observed.
    ///   - pool: the worker pool whose signing lane signs access tokens.
    ///   - grantCache: the resource side's cache of live grants, which revocations here drop at once.
    ///   - browser: the owners' cookies, sessions and CSRF (`OwnerService.browser`).
    ///   - inboxes: the owners' inboxes, for the consent page's inbox picker.
    ///   - metadataDocuments: the fetcher of client ID metadata documents (https `client_id`s), with its address
    ///     policy, no redirects and a size cap; nil turns them off (the metadata then says so).
    ///   - clock: Unix seconds.
    ///   - monotonicClock: what the rate-limit buckets refill by.
    ///   - metricsFactory: where counters go; nil uses `MetricsSystem.factory`.
    ///   - onUnexpectedError: told about any error answered as a bare 500, with the request id.
    ///   - audit: where approvals (`app.approved`), apps' own revocations (`app.revoked`) and client credentials grants
    ///     (`app.client_credentials`) are recorded.
    ///   - clientKeyDocuments: the fetcher of confidential clients' `jwks_uri` documents (the outbound fetcher, its
    ///     address policy, no redirects, a size cap); nil: such clients cannot authenticate.
    ///   - capabilityTokens: how introspection recognises capability tokens; nil: they are inactive to it.
    ///   - identityIssuers: the sign-in providers whose identity assertions the JWT bearer grant and token exchange
    ///     take (when ``OAuthConfiguration/jwtBearer`` is on); nil: none.
    ///   - openIDOwners: the owners, whose identity relying parties are told; nil: no OpenID Provider (issue 88).
    ///   - logoutDelivery: the deliverer of back-channel logout tokens; nil: none are sent.
    ///   - accessTokens: the check of access tokens the resource side makes, shared so that introspection keeps the
    ///     same verified tokens and live grants; nil: one of its own (``OAuthConfiguration/verifiedTokenCache``
    ///     verified tokens, every grant read).
    /// - Throws: storage errors reading or creating the consent key.
    public init(
        configuration: OAuthConfiguration, keys: JWTKeySet, database: any SQLDatabase, grants: OAuthGrantStore,
        pool: WorkerPool,
        browser: OwnerBrowser, inboxes: any OwnedInboxes, metadataDocuments: (any OAuthDocumentFetching)? = nil,
        clock: @escaping @Sendable () -> Int64,
        monotonicClock: MonotonicClock = .system, metricsFactory: (any MetricsFactory)? = nil,
        onUnexpectedError: UnexpectedErrorReporter? = nil, audit: AuditTrail = .disabled,
        clientKeyDocuments: (any OAuthDocumentFetching)? = nil, capabilityTokens: OAuthCapabilityTokens? = nil,
        identityIssuers: (any OAuthIdentityIssuers)? = nil, openIDOwners: OwnerStore? = nil,
        logoutDelivery: (any OIDCLogoutDelivering)? = nil, accessTokens: OAuthTokenVerifier? = nil
    ) throws {
        self.configuration = configuration
        self.audit = audit
        auditsInGrantWrites = audit.logs(to: database)
        self.keys = keys
        self.accessTokens =
            accessTokens
            ?? OAuthTokenVerifier(
                keys: keys, issuer: configuration.issuer, lifetime: configuration.accessTokenLifetime,
                verifiedTokens: configuration.verifiedTokenCache, grants: grants, cache: nil)
        clients = OAuthClientStore(records: OAuthClientRecords(database: database))
        directory = OAuthClientDirectory(store: clients, fetcher: metadataDocuments, configuration: configuration)
        self.grants = grants
        confidentialClients = OAuthConfidentialClients(database: database)
        clientKeys = OAuthClientKeys(fetcher: clientKeyDocuments)
        self.capabilityTokens = capabilityTokens
        self.identityIssuers = identityIssuers
        self.pool = pool
        self.browser = browser
        self.inboxes = inboxes
        self.clock = clock
        let metrics = OAuthMetrics(factory: metricsFactory ?? MetricsSystem.factory)
        self.metrics = metrics
        let raceWindow = configuration.refreshRaceWindow
        consentKey = try SharedSecrets(database: database).secret(named: "oauth.consent") { SecureRandom.bytes(32) }
        let rates = (
            register: TokenBucketRate(requests: configuration.registrationsPerHour, perSeconds: 3600)
                .share(among: configuration.instances),
            endpoint: TokenBucketRate(requests: configuration.requestsPerMinute, perSeconds: 60)
                .share(among: configuration.instances),
            introspect: TokenBucketRate(requests: configuration.introspectionsPerMinute, perSeconds: 60)
                .share(among: configuration.instances)
        )
        middleware = SurfaceMiddleware(
            limiter: configuration.rateLimitsEnabled
                ? RateLimitTable(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) {
                    switch $0 {
                    case .register: rates.register
                    case .endpoint: rates.endpoint
                    case .introspect: rates.introspect
                    }
                } : nil,
            rejected: { metrics.rateLimited($0) },
            tooManyRequests: { _, _ in OAuthError.tooManyRequests.response },
            failure: { error in
                if let error = error as? OAuthError { return (error.response, false) }
                let failure = ServiceFailure(error)
                if case WorkerPoolError.overloaded = error { return (OAuthError.overloaded.response, false) }
                guard failure.status == .serviceUnavailable else { return (OAuthError.serverError.response, failure.shouldLog) }
                // A refresh answered 503 may have rotated anyway; its retry with the same token is rotated again only
                // once the race window has passed (before, it is taken for a racing request), so the client waits past it.
                var unavailable = OAuthError.unavailable.response
                unavailable.headers.setRetryAfter(seconds: Int(raceWindow) + 1)
                return (unavailable, failure.shouldLog)
            },
            onUnexpectedError: onUnexpectedError)
        openID = try openIDOwners.map {
            try OIDCProvider(database: database, grants: grants, owners: $0, logout: logoutDelivery)
        }
        metadata = Self.metadata(
            configuration, documents: metadataDocuments != nil,
            delegation: Self.delegationGrantTypes(configuration, identityIssuers: identityIssuers != nil),
            openID: openID != nil)
        if openID != nil {
            // An owner who signs out on the owner pages ends their sign-ins at the relying parties too.
            browser.signOuts.add { [weak self] digest in
                guard let self else { return }
                await backChannelLogout(session: digest, now: clock())
            }
        }
    }

    /// Adds the routes: `GET /.well-known/oauth-authorization-server`, `POST /oauth/register`, `POST /oauth/token`,
    /// `POST /oauth/revoke`, `POST /oauth/introspect` when introspection is on, `POST /oauth/device_authorization`
    /// when the device flow is on (each with a CORS preflight; then the verification page `/owner/device` too),
    /// `GET /oauth/authorize` (`POST` is 404) and `POST /oauth/consent`.
    public func register(into router: inout ContextRouter) {
        let limit = configuration.bodyLimit
        let preflight = ContextRouteHandler.immediate { _, _, _ in OAuthJSON.preflight() }
        router.add(.GET, "/.well-known/oauth-authorization-server", .immediate { [metadata] _, _, _ in
            OAuthJSON.response(.ok, metadata, cache: "public, max-age=300")
        })
        router.add(.OPTIONS, "/.well-known/oauth-authorization-server", preflight)
        router.add(.POST, "/oauth/register", bodyLimit: limit, .deferred { [self] request, context, _ in
            await middleware.run(.register, context) { try await register(request) }
        })
        router.add(.POST, "/oauth/token", bodyLimit: limit, tokenRoute)
        router.add(.POST, "/oauth/revoke", bodyLimit: limit, .deferred { [self] request, context, _ in
            await middleware.run(.endpoint, context) { try await revoke(request) }
        })
        var preflighted = ["/oauth/register", "/oauth/token", "/oauth/revoke"]
        if configuration.deviceAuthorization {
            router.add(.POST, "/oauth/device_authorization", bodyLimit: limit, .deferred { [self] request, context, _ in
                await middleware.run(.endpoint, context) { try await deviceAuthorization(request) }
            })
            preflighted.append("/oauth/device_authorization")
            registerDeviceVerification(into: &router)
        }
        if configuration.introspection {
            router.add(.POST, "/oauth/introspect", bodyLimit: limit, introspectionRoute)
            preflighted.append("/oauth/introspect")
        }
        for path in preflighted { router.add(.OPTIONS, path, preflight) }
        router.add(.GET, "/oauth/authorize", .deferred { [self] request, context, _ in
            await pageMiddleware(context) { try await authorize(request) }
        })
        // Contract 1.3: the authorization endpoint is GET only, and POST is 404 (not 405).
        router.add(.POST, "/oauth/authorize", bodyLimit: limit, .immediate { _, _, _ in
            .json(.notFound, #"{"error":"not_found"}"#)
        })
        router.add(.POST, "/oauth/consent", bodyLimit: limit, .deferred { [self] request, context, _ in
            await pageMiddleware(context) { try await consent(request, client: context.clientAddress?.description) }
        })
        if openID != nil { registerOpenID(into: &router) }
    }

    /// What an unmatched `/oauth/` request or an HTTP-layer refusal there (413, 431, a malformed request) gets: the
    /// OAuth error shape.
    public func unmatchedResponse(_ status: HTTPStatus) -> HTTPResponse {
        switch status {
        case .notFound: return OAuthError("not_found", "No such OAuth endpoint.", status: status).response
        case .methodNotAllowed:
            return OAuthError("invalid_request", "This endpoint does not take that method.", status: status).response
        default: return OAuthError("invalid_request", "The request could not be read.", status: status).response
        }
    }

    /// The client `clientID` names (registered, or a metadata document), if any.
    func client(id clientID: String) async throws -> OAuthClient? {
        try await directory.client(id: clientID, now: clock())
    }

    /// The browser pages' middleware: the endpoint rate class; an unforeseen failure is an HTML page.
    func pageMiddleware(_ context: RequestContext, _ handler: () async throws -> HTTPResponse) async -> HTTPResponse {
        let decision = middleware.charge(.endpoint, context)
        if let decision, !decision.allowed {
            var response = BrowserPage.message(
                .tooManyRequests, "Too many requests", "Too many requests from this address; try again shortly.")
            response.headers.setRetryAfter(decision)
            return response
        }
        do {
            return try await handler()
        } catch {
            _ = middleware.answer(error, context)
            return BrowserPage.message(
                ServiceFailure(error).status, "Something went wrong", "The server could not complete the request.")
        }
    }

    /// RFC 8414 metadata with the contract's fields (1.2); the device authorization endpoint and grant (RFC 8628
    /// section 4), the client credentials grant, `client_secret_basic`,
    /// `private_key_jwt` with its signing algorithms, and the introspection endpoint with its methods, only when on.
    /// - Parameters:
    ///   - delegation: the delegation grant types served (``delegationGrantTypes(_:identityIssuers:)``).
    ///   - openID: whether the OpenID Provider's members are added (issue 88).
    static func metadata(
        _ configuration: OAuthConfiguration, documents: Bool, delegation: [String], openID: Bool = false
    ) -> JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        let issuer = configuration.issuer
        let credentials = configuration.clientCredentials
        let confidential = configuration.confidentialClientsServed
        let grantTypes = supportedGrantTypes(configuration) + delegation
        let confidentialMethods = ["client_secret_basic", "client_secret_post", "private_key_jwt"]
        let authMethods = confidential ? confidentialMethods + ["none"] : ["client_secret_post", "none"]
        let algorithms = strings(PublishedKey.Algorithm.allCases.map(\.rawValue))
        var members: [(String, JSONValue)] = [
            ("issuer", .string(issuer)),
            ("authorization_endpoint", .string(issuer + "/oauth/authorize")),
            ("token_endpoint", .string(issuer + "/oauth/token")),
            ("revocation_endpoint", .string(issuer + "/oauth/revoke")),
            ("registration_endpoint", .string(issuer + "/oauth/register")),
            ("jwks_uri", .string(issuer + "/.well-known/jwks.json")),
            ("scopes_supported", strings(OAuthScope.supported)),
            ("response_types_supported", strings(["code"])),
            ("grant_types_supported", strings(grantTypes)),
            ("code_challenge_methods_supported", strings(["S256"])),
            ("token_endpoint_auth_methods_supported", strings(authMethods)),
        ]
        if configuration.deviceAuthorization {
            members.append(("device_authorization_endpoint", .string(configuration.deviceAuthorizationEndpoint)))
        }
        if confidential {
            members.append(("token_endpoint_auth_signing_alg_values_supported", algorithms))
            members.append(("revocation_endpoint_auth_methods_supported", strings(authMethods)))
            // RFC 8414 section 2: required wherever private_key_jwt is listed (authlib's validation holds it).
            members.append(("revocation_endpoint_auth_signing_alg_values_supported", algorithms))
        }
        if configuration.introspection {
            members.append(("introspection_endpoint", .string(issuer + "/oauth/introspect")))
            members.append(("introspection_endpoint_auth_methods_supported", strings(confidentialMethods)))
            members.append(("introspection_endpoint_auth_signing_alg_values_supported", algorithms))
        }
        members += [
            ("authorization_response_iss_parameter_supported", .bool(true)),
            ("client_id_metadata_document_supported", .bool(documents)),
            ("token_profiles_supported", strings(["at+jwt"])),
        ]
        if openID { members = openIDMetadata(members, issuer: issuer) }
        return .object(members)
    }
}
