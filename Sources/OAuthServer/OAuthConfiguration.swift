import OAuthGrants
import ServerKit

/// Everything the authorization server can be told; every default is stated here (docs/decisions/0017).
///
/// ``init(config:)`` reads the operator's keys from a reader scoped to `POSTERN_OAUTH` and refuses a bad value
/// naming its key; the composition root sets ``issuer``, ``rateLimitsEnabled`` and ``instances``, which every surface
/// shares.
///
/// ## Configuration keys
/// - `POSTERN_OAUTH_REFRESH_RACE_SECONDS` (integer, 0 to 60, default 2): ``refreshRaceWindow``.
/// - `POSTERN_OAUTH_REFRESH_RETRY_SECONDS` (integer, 0 to 600, default 60): ``refreshRetryWindow``.
/// - `POSTERN_OAUTH_CLIENT_METADATA_DOCUMENTS` (on or off, default on): ``clientMetadataDocuments``.
/// - `POSTERN_OAUTH_CIMD_ALLOW_HOSTS` (comma-separated hosts, default none): ``clientMetadataAllowedHosts``.
/// - `POSTERN_OAUTH_CIMD_TRUST_CA_FILE` (a PEM file, default the system roots): ``clientMetadataTrustedRoots``.
/// - `POSTERN_OAUTH_CLIENT_CREDENTIALS` (on or off, default on): ``clientCredentials``.
/// - `POSTERN_OAUTH_INTROSPECTION` (on or off, default on): ``introspection``.
/// - `POSTERN_OAUTH_ASSERTION_MAX_SECONDS` (integer, 30 to 3600, default 600): ``assertionMaxLifetime``.
/// - `POSTERN_OAUTH_SECRET_OVERLAP_SECONDS` (integer, 0 to 30 days, default 86400): ``secretRotationOverlap``.
/// - `POSTERN_OAUTH_OPENID` (on or off, default on): ``openIDProvider``.
/// - `POSTERN_OAUTH_DEVICE_AUTHORIZATION` (on or off, default on): ``deviceAuthorization``.
/// - `POSTERN_OAUTH_DEVICE_CODE_SECONDS` (integer, 5 to 3600, default 600): ``deviceCodeLifetime``.
/// - `POSTERN_OAUTH_DEVICE_INTERVAL_SECONDS` (integer, 1 to 60, default 5): ``devicePollInterval``.
/// - `POSTERN_OAUTH_DEVICE_GUESSES_PER_SESSION` (integer, 1 to 100, default 5): ``deviceGuessesPerSession``.
/// - `POSTERN_OAUTH_DEVICE_GUESSES_PER_ADDRESS` (integer, 1 to 10000, default 20): ``deviceGuessesPerAddress``.
/// - `POSTERN_OAUTH_TOKEN_EXCHANGE` (on or off, default on): ``tokenExchange``.
/// - `POSTERN_OAUTH_TOKEN_EXCHANGE_MAX_DEPTH` (integer, 1 to 10, default 3): ``tokenExchangeMaxDepth``.
/// - `POSTERN_OAUTH_JWT_BEARER` (on or off, default off): ``jwtBearer``.
/// - `POSTERN_OAUTH_VERIFIED_TOKEN_CACHE` (integer, 0 to 1000000, default 4096): ``verifiedTokenCache``.
public struct OAuthConfiguration: Sendable {
    /// The issuer and public base URL (`POSTERN_PUBLIC_URL`, no trailing slash): the metadata's `issuer`, every
    /// endpoint's base, the `iss` of access tokens and of every authorization response.
    public var issuer: String
    /// Lifetime of an access token, seconds. Default 900 (the longest `JWTPurpose.oauthAccess` allows).
    public var accessTokenLifetime: Int64 = 900
    /// Sliding lifetime of a refresh token from its issue, seconds. Default 90 days.
    public var refreshTokenLifetime: Int64 = 90 * 86_400
    /// Absolute cap of a grant's rotation chain from consent, seconds. Default 365 days.
    public var grantLifetime: Int64 = 365 * 86_400
    /// Lifetime of an authorization code, seconds. Default 60.
    public var codeLifetime: Int64 = 60
    /// A superseded refresh token presented less than this many seconds after it was superseded lost a race and
    /// revokes nothing; later it is a reuse that revokes the grant. Default 2.
    public var refreshRaceWindow: Int64 = 2
    /// A superseded refresh token presented again less than this many seconds after it was superseded, while the
    /// token that replaced it has never been presented, is the retry of a refresh whose answer the client did not get
    /// (a 503 whose rotation committed after all, a failover, a dropped connection): it is rotated again, the unused
    /// successor superseded, instead of being taken for a reuse. It also lets a thief holding a just-superseded token
    /// take the unused successor's place until the legitimate client refreshes: that is then the reuse that revokes the
    /// grant (once the window has passed), so it bounds how long such a theft goes unnoticed. 0: off. Default 60
    /// (the commit timeout of a database write, a failover and a client's backoff).
    public var refreshRetryWindow: Int64 = 60
    /// A registered client with no grant after this many seconds is deleted. Default 24 hours.
    public var unusedClientLifetime: Int64 = 86_400
    /// How long the consent form's signed copy of the authorization request stays good, seconds. Default 10 minutes.
    public var consentLifetime: Int64 = 600
    /// Registrations per hour per client address (IPv6 per /64) when rate limits are on. Default 10.
    public var registrationsPerHour = 10
    /// Token, revoke and authorize requests per minute per client address when rate limits are on. Default 120.
    public var requestsPerMinute = 120
    /// Introspection requests per minute per client address when rate limits are on: a resource server asks once per
    /// token it is shown (a Dovecot at every sign-in), from one address. Default 6,000.
    public var introspectionsPerMinute = 6_000
    /// Per-address rate limits (`POSTERN_RATE_LIMITS`). Default on.
    public var rateLimitsEnabled = true
    /// How many instances enforce the limits together (`POSTERN_INSTANCES`). Default 1.
    public var instances = 1
    /// Slots of the rate-limit table. Default 65,536.
    public var rateLimitTableCapacity = 65_536
    /// Largest request body of the JSON and form endpoints, bytes. Default 16 KiB.
    public var bodyLimit = 16 * 1024
    /// Most redirect URIs one client may register. Default 10.
    public var maxRedirectURIs = 10
    /// Longest redirect URI, bytes. Default 2,048.
    public var maxRedirectURILength = 2_048
    /// Longest `client_name`, characters. Default 200.
    public var maxClientNameLength = 200
    /// Whether an https `client_id` is fetched as a client ID metadata document. Default on.
    public var clientMetadataDocuments = true
    /// Hosts whose metadata documents (and confidential clients' `jwks_uri`, relying parties' `sector_identifier_uri`)
    /// may be fetched from non-global addresses (for tests on loopback). Default none.
    public var clientMetadataAllowedHosts: [String] = []
    /// A PEM file of the roots metadata-document fetches trust instead of the system's (for tests with their own CA).
    /// Default nil: the system roots.
    public var clientMetadataTrustedRoots: String?
    /// Whether the client credentials grant is served to the operator's confidential clients (`postern oauth client
    /// create`), with `client_secret_basic` and `private_key_jwt` (RFC 7523) beside `client_secret_post`; the metadata
    /// lists the grant and the methods only when on. Default on (a server with no such client issues nothing).
    public var clientCredentials = true
    /// Whether `/oauth/introspect` (RFC 7662) is served to confidential clients made with `--introspection`; the
    /// metadata lists it only when on. Default on.
    public var introspection = true
    /// The longest a `private_key_jwt` assertion may live, seconds: its `exp` may be at most this far past `now`
    /// (and its `iat`, when given, no older); its `jti` is kept that long to refuse a replay. Default 600.
    public var assertionMaxLifetime: Int64 = 600
    /// How long a confidential client's old secret keeps working after `postern oauth client rotate-secret`, seconds,
    /// unless the command says otherwise. Default 86,400 (a day, for the client's deployments to move over).
    public var secretRotationOverlap: Int64 = 86_400
    /// Whether the server is the OpenID Provider of the operator's relying parties (issue 88): the operator's
    /// confidential clients made with `--redirect-uri` sign owners in (ID tokens, userinfo, logout); the metadata and
    /// `/.well-known/openid-configuration` say so only when on. Default on (a server with no such client signs no one
    /// in).
    public var openIDProvider = true
    /// Whether the device authorization grant (RFC 8628) is served: `/oauth/device_authorization`, the verification
    /// page `/owner/device`, the device-code grant at the token endpoint and in registrations; the metadata lists the
    /// endpoint and the grant type only when on. Default on.
    public var deviceAuthorization = true
    /// How long a device code (and its user code) lives, seconds. Default 600 (RFC 8628's example, ten minutes).
    public var deviceCodeLifetime: Int64 = 600
    /// The least number of seconds between a device's polls at first (each `slow_down` adds 5). Default 5 (RFC 8628
    /// section 3.5's default).
    public var devicePollInterval: Int64 = 5
    /// Wrong user codes one owner session may enter on `/owner/device` in ``deviceGuessWindow``; the next entry, right
    /// or wrong, is refused unread. Default 5.
    public var deviceGuessesPerSession = 5
    /// Wrong user codes one client address may enter in ``deviceGuessWindow``, whatever the session. Default 20.
    public var deviceGuessesPerAddress = 20
    /// The window wrong user codes are counted in, seconds from the first. Default 3,600.
    public var deviceGuessWindow: Int64 = 3_600
    /// Whether token exchange (RFC 8693, `urn:ietf:params:oauth:grant-type:token-exchange`) is served: an agent
    /// client the owner allowed on `/owner/actors` trades the owner's access token for one that names it in `act`.
    /// The metadata lists the grant only when on. Default on (no client acts for anyone until an owner allows it).
    public var tokenExchange = true
    /// The most actors a token exchange may nest in `act` (an agent is 1, its sub-agent 2, ...). Default 3.
    public var tokenExchangeMaxDepth = 3
    /// How many access tokens introspection keeps verified (``OAuthVerifiedTokens``: the signature of the same bytes
    /// is not checked again until the token expires or its key is retired; the grant is read on every request).
    /// 0: every introspection verifies the signature. Default 4096 (about 4 MiB at most).
    public var verifiedTokenCache = OAuthVerifiedTokens.defaultCapacity
    /// Whether the JWT bearer grant (RFC 7523 section 2.1) takes identity assertions (ID-JAG, MCP's enterprise-managed
    /// authorization) signed by a sign-in provider the operator configured, and whether token exchange takes one as a
    /// subject. Default off: it lets that provider speak for an owner without the owner present, which an operator
    /// turns on knowingly.
    public var jwtBearer = false

    /// - Parameter issuer: the public base URL without a trailing slash, for example `https://auth.example.com`.
    public init(issuer: String) {
        self.issuer = issuer
    }

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it);
    /// ``issuer`` is empty until the composition root knows the public URL.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init(issuer: "")
        let config = config.scoped(to: "POSTERN_OAUTH")
        if let seconds = try config.integer("REFRESH_RACE_SECONDS") { refreshRaceWindow = Int64(seconds) }
        if let seconds = try config.integer("REFRESH_RETRY_SECONDS") { refreshRetryWindow = Int64(seconds) }
        if let on = try config.flag("CLIENT_METADATA_DOCUMENTS") { clientMetadataDocuments = on }
        if let hosts = config.list("CIMD_ALLOW_HOSTS") { clientMetadataAllowedHosts = hosts }
        if let file = config.text("CIMD_TRUST_CA_FILE") { clientMetadataTrustedRoots = file.isEmpty ? nil : file }
        if let on = try config.flag("CLIENT_CREDENTIALS") { clientCredentials = on }
        if let on = try config.flag("INTROSPECTION") { introspection = on }
        if let seconds = try config.integer("ASSERTION_MAX_SECONDS") { assertionMaxLifetime = Int64(seconds) }
        if let seconds = try config.integer("SECRET_OVERLAP_SECONDS") { secretRotationOverlap = Int64(seconds) }
        if let on = try config.flag("OPENID") { openIDProvider = on }
        if let on = try config.flag("DEVICE_AUTHORIZATION") { deviceAuthorization = on }
        if let seconds = try config.integer("DEVICE_CODE_SECONDS") { deviceCodeLifetime = Int64(seconds) }
        if let seconds = try config.integer("DEVICE_INTERVAL_SECONDS") { devicePollInterval = Int64(seconds) }
        if let count = try config.integer("DEVICE_GUESSES_PER_SESSION") { deviceGuessesPerSession = count }
        if let count = try config.integer("DEVICE_GUESSES_PER_ADDRESS") { deviceGuessesPerAddress = count }
        if let on = try config.flag("TOKEN_EXCHANGE") { tokenExchange = on }
        if let depth = try config.integer("TOKEN_EXCHANGE_MAX_DEPTH") { tokenExchangeMaxDepth = depth }
        if let on = try config.flag("JWT_BEARER") { jwtBearer = on }
        if let count = try config.integer("VERIFIED_TOKEN_CACHE") { verifiedTokenCache = count }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (0...60).contains(refreshRaceWindow) else {
            throw ConfigurationError(key: "POSTERN_OAUTH_REFRESH_RACE_SECONDS", message: "must be from 0 to 60")
        }
        guard (0...600).contains(refreshRetryWindow) else {
            throw ConfigurationError(key: "POSTERN_OAUTH_REFRESH_RETRY_SECONDS", message: "must be from 0 to 600")
        }
        guard (30...3600).contains(assertionMaxLifetime) else {
            throw ConfigurationError(key: "POSTERN_OAUTH_ASSERTION_MAX_SECONDS", message: "must be from 30 to 3600")
        }
        guard (0...(30 * 86_400)).contains(secretRotationOverlap) else {
            throw ConfigurationError(
                key: "POSTERN_OAUTH_SECRET_OVERLAP_SECONDS", message: "must be from 0 to 2592000 (30 days)")
        }
        let ranges: [(String, ClosedRange<Int64>, Int64)] = [
            ("DEVICE_CODE_SECONDS", 5...3600, deviceCodeLifetime),
            ("DEVICE_INTERVAL_SECONDS", 1...60, devicePollInterval),
            ("DEVICE_GUESSES_PER_SESSION", 1...100, Int64(deviceGuessesPerSession)),
            ("DEVICE_GUESSES_PER_ADDRESS", 1...10_000, Int64(deviceGuessesPerAddress)),
            ("TOKEN_EXCHANGE_MAX_DEPTH", 1...10, Int64(tokenExchangeMaxDepth)),
            ("VERIFIED_TOKEN_CACHE", 0...1_000_000, Int64(verifiedTokenCache)),
        ]
        for (key, range, value) in ranges where !range.contains(value) {
            throw ConfigurationError(
                key: "POSTERN_OAUTH_" + key, message: "must be from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// The `resource` values an authorization may name, byte for byte: `<issuer>/jmap`, `<issuer>/mcp`
    /// (`urn:atomicmail:agent:{accountId}` is checked by ``OAuthResource``).
    public var serviceResources: [String] { [issuer + "/jmap", issuer + "/mcp"] }

    /// Whether confidential clients authenticate at all: some grant or endpoint that serves them is on.
    public var confidentialClientsServed: Bool { clientCredentials || introspection || tokenExchange || jwtBearer }

    /// The token endpoint's URL: an audience a `private_key_jwt` assertion may name (besides the issuer).
    public var tokenEndpoint: String { issuer + "/oauth/token" }

    /// The device authorization endpoint's URL (RFC 8628 section 3.1).
    public var deviceAuthorizationEndpoint: String { issuer + "/oauth/device_authorization" }

    /// The verification page's URL (RFC 8628 `verification_uri`), on the owners' surface.
    public var deviceVerificationURI: String { issuer + "/owner/device" }
}
