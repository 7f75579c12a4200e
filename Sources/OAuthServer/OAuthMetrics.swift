import Metrics

/// The counters of the authorization server (swift-metrics; Prometheus names).
struct OAuthMetrics: Sendable {
    /// `postern_oauth_grants_total`: consents approved.
    let grants: Counter
    /// `postern_oauth_refreshes_total`: refresh tokens rotated.
    let refreshes: Counter
    /// `postern_oauth_codes_redeemed_total`: authorization codes exchanged for tokens.
    let codesRedeemed: Counter
    /// `postern_oauth_reuse_detections_total{kind="code"}`: a used code presented again (grant revoked).
    let codeReuses: Counter
    /// `postern_oauth_reuse_detections_total{kind="refresh_token"}`: a superseded refresh token presented after
    /// the race window (grant revoked).
    let refreshReuses: Counter
    /// `postern_oauth_refresh_races_total`: a superseded refresh token within the race window (nothing revoked).
    let refreshRaces: Counter
    /// `postern_oauth_registrations_total`: clients registered.
    let registrations: Counter
    /// `postern_oauth_revocations_total`: grants revoked through `/oauth/revoke`.
    let revocations: Counter
    /// `postern_oauth_client_credentials_total`: tokens issued with the client credentials grant.
    let clientCredentials: Counter
    /// `postern_oauth_introspections_total`: introspection requests answered (active or not).
    let introspections: Counter
    /// `postern_oauth_reuse_detections_total{kind="client_assertion"}`: a client assertion's `jti` presented again.
    let assertionReplays: Counter
    /// `postern_oidc_events_total{event=...}`: OpenID Provider outcomes (issue 88), one counter per
    /// ``OAuthMetrics/openIDEvents`` word.
    private let openID: [String: Counter]
    /// `postern_oauth_device_authorizations_total{outcome=...}`: device authorizations started, approved, denied and
    /// redeemed.
    let device: [OAuthDeviceOutcome: Counter]
    /// `postern_oauth_device_guesses_refused_total`: user codes refused unread on `/owner/device` (a budget spent).
    let deviceGuessesRefused: Counter
    /// `postern_oauth_delegated_tokens_total{grant="token_exchange"}`: tokens minted by token exchange (RFC 8693).
    let tokenExchanges: Counter
    /// `postern_oauth_delegated_tokens_total{grant="jwt_bearer"}`: tokens minted for an identity assertion (RFC 7523).
    let jwtBearerGrants: Counter
    /// `postern_oauth_reuse_detections_total{kind="identity_assertion"}`: an identity assertion's `jti` presented
    /// again.
    let identityAssertionReplays: Counter
    /// `postern_rate_limit_rejections_total{surface="oauth",class=...}`.
    private let rejections: [OAuthService.RateClass: Counter]

    init(factory: any MetricsFactory) {
        grants = Counter(label: "postern_oauth_grants_total", factory: factory)
        refreshes = Counter(label: "postern_oauth_refreshes_total", factory: factory)
        codesRedeemed = Counter(label: "postern_oauth_codes_redeemed_total", factory: factory)
        codeReuses = Counter(
            label: "postern_oauth_reuse_detections_total", dimensions: [("kind", "code")], factory: factory)
        refreshReuses = Counter(
            label: "postern_oauth_reuse_detections_total", dimensions: [("kind", "refresh_token")], factory: factory)
        refreshRaces = Counter(label: "postern_oauth_refresh_races_total", factory: factory)
        registrations = Counter(label: "postern_oauth_registrations_total", factory: factory)
        revocations = Counter(label: "postern_oauth_revocations_total", factory: factory)
        clientCredentials = Counter(label: "postern_oauth_client_credentials_total", factory: factory)
        introspections = Counter(label: "postern_oauth_introspections_total", factory: factory)
        assertionReplays = Counter(
            label: "postern_oauth_reuse_detections_total", dimensions: [("kind", "client_assertion")],
            factory: factory)
        openID = Dictionary(
            uniqueKeysWithValues: Self.openIDEvents.map {
                ($0, Counter(label: "postern_oidc_events_total", dimensions: [("event", $0)], factory: factory))
            })
        var device: [OAuthDeviceOutcome: Counter] = [:]
        for outcome in OAuthDeviceOutcome.allCases {
            device[outcome] = Counter(
                label: "postern_oauth_device_authorizations_total", dimensions: [("outcome", outcome.rawValue)],
                factory: factory)
        }
        self.device = device
        deviceGuessesRefused = Counter(label: "postern_oauth_device_guesses_refused_total", factory: factory)
        tokenExchanges = Counter(
            label: "postern_oauth_delegated_tokens_total", dimensions: [("grant", "token_exchange")], factory: factory)
        jwtBearerGrants = Counter(
            label: "postern_oauth_delegated_tokens_total", dimensions: [("grant", "jwt_bearer")], factory: factory)
        identityAssertionReplays = Counter(
            label: "postern_oauth_reuse_detections_total", dimensions: [("kind", "identity_assertion")],
            factory: factory)
        var rejections: [OAuthService.RateClass: Counter] = [:]
        for rateClass in OAuthService.RateClass.allCases {
            rejections[rateClass] = Counter(
                label: "postern_rate_limit_rejections_total",
                dimensions: [("surface", "oauth"), ("class", "\(rateClass)")], factory: factory)
        }
        self.rejections = rejections
    }

    func device(_ outcome: OAuthDeviceOutcome) { device[outcome]?.increment() }

    func rateLimited(_ rateClass: OAuthService.RateClass) { rejections[rateClass]?.increment() }

    /// The OpenID Provider's events: a browser sent to sign in, a prompt error, a refusal by a client's sign-in
    /// policy, a code issued, an ID token issued, a code presented again, a logout, a logout token delivered or not, a
    /// code redeemed into a token that reaches mail (`mail_grant`).
    static let openIDEvents = [
        "sign_in", "login_required", "consent_required", "access_denied", "code", "id_token", "code_reuse",
        "logout", "backchannel_delivered", "backchannel_failed", "mail_grant",
    ]

    func openIDEvent(_ event: String) { openID[event]?.increment() }
}

/// What happened to a device authorization, as its counter's `outcome` label says.
enum OAuthDeviceOutcome: String, CaseIterable, Sendable {
    case started, approved, denied, redeemed
}
