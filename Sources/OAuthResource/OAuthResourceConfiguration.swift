import OAuthGrants

/// Where the resource side of OAuth (issue 28) is served and what it accepts, in one place.
public struct OAuthResourceConfiguration: Sendable {
    /// The authorization server's issuer: the access tokens' required `iss` (the public URL unless `JWT_ISSUER`).
    public var issuer: String
    /// The public base URL, without a trailing slash.
    public var baseURL: String
    /// Whether grants found live are kept in memory until a revocation says otherwise (default true). Only where
    /// every revocation reaches ``OAuthGrantCache/invalidate(grantID:)``: on PostgreSQL, the `postern_grants`
    /// notifications do; the composition root turns it off on SQLite, whose one local read is cheaper than the risk.
    public var cacheGrants = true
    /// The most grants a cache keeps (default 100 000); past it, the entries of expired tokens go first, then all.
    public var cacheCapacity = 100_000

    /// The per-client rate limit of `/api/v1/agents`.
    public struct RateLimits: Sendable {
        /// Whether it is enforced (default true; `POSTERN_RATE_LIMITS`).
        public var enabled = true
        /// Per client address (IPv6 per /64): requests per minute (default 600, as JMAP's and MCP's, whose clients
        /// call it).
        public var requestsPerMinute = 600
        /// How many instances enforce the limit together (`POSTERN_INSTANCES`): this one takes its share. Default 1.
        public var instances = 1
        /// The most client addresses tracked at once (default 65 536).
        public var tableCapacity = 65_536

        public init() {}
    }

    /// The rate limit of `/api/v1/agents`.
    public var rateLimits = RateLimits()

    /// - Parameters:
    ///   - issuer: the required `iss`.
    ///   - baseURL: the public base URL; a trailing slash is dropped.
    public init(issuer: String, baseURL: String) {
        self.issuer = issuer
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// `<public URL>/jmap`, the JMAP resource.
    public var jmapResource: String { baseURL + "/jmap" }
    /// `<public URL>/mcp`, the MCP resource.
    public var mcpResource: String { baseURL + "/mcp" }
    /// The prefix of the resources bound to one inbox: `urn:atomicmail:agent:{accountId}`.
    public static let agentResourcePrefix = OAuthAccessClaims.inboxResourcePrefix
    /// Access tokens live at most this long (RFC 9068 tokens of this server: 900 s).
    public static let accessTokenLifetime: Int64 = 900
}
