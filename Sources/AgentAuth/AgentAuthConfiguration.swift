import AgentPoW
import ServerKit

/// Settings of the agent signup surface (CONTRACT.md section 1), read once at start.
///
/// Every property states its default; the defaults match the hosted Atomic Mail service where the
/// contract says so. ``init(config:)`` reads the operator's keys from a reader scoped to `POSTERN_AGENT` and refuses a
/// bad value naming its key; the composition root sets ``publicURL``, ``issuer``, ``rateLimitsEnabled`` and
/// ``instances``, which every surface shares.
///
/// ## Configuration keys
/// - `POSTERN_AGENT_POW_SALT` (text, not empty, default Atomic Mail's): ``powSalt``.
/// - `POSTERN_AGENT_POW_DIFFICULTY` (integer, 0 to 64, default 6): ``baseDifficulty``.
/// - `POSTERN_AGENT_POW_MAX_DIFFICULTY` (integer, the base difficulty to 64, default 18): ``maxDifficulty``.
/// - `POSTERN_AGENT_POW_DYNAMIC` (on or off, default on): ``dynamicDifficulty``.
/// - `POSTERN_AGENT_INBOX_DOMAIN` (a domain, default `agents.localhost`): ``inboxDomain``.
/// - `POSTERN_AGENT_INBOX_QUOTA` (bytes, not negative, default 40 MiB): ``inboxQuota``.
public struct AgentAuthConfiguration: Sendable {
    /// The hosted service's salt text, used when the operator sets none (``AgentProofOfWork/defaultSalt``).
    public static let defaultPoWSalt = AgentProofOfWork.defaultSalt

    /// Base URL of this instance, without a trailing slash, used in `docs_url` and `/llms.txt`.
    /// Default `http://localhost:8080`.
    public var publicURL: String
    /// `iss` of every token this surface mints and accepts. Default: the public URL.
    public var issuer: String
    /// Proof-of-work salt text; scrypt uses its UTF-8 bytes, never the decoded hex.
    /// Default ``defaultPoWSalt``.
    public var powSalt: String
    /// Difficulty (leading zero bits) of every challenge before any dynamic raise. Default 6; 0 allowed.
    public var baseDifficulty: Int
    /// Cap of the dynamic difficulty. Default 18.
    public var maxDifficulty: Int
    /// When false, every challenge has ``baseDifficulty`` (test suites). Default true.
    public var dynamicDifficulty: Bool
    /// Domain of agent inboxes: `<username>@<inboxDomain>`. Default `agents.localhost`.
    public var inboxDomain: String
    /// Bytes of mail an agent inbox may hold. Default 40 MiB, a free Mail.td mailbox's.
    public var inboxQuota: Int64 = 41_943_040
    /// Lifetime of a challenge JWT in seconds. Default 180.
    public var challengeTTL: Int64
    /// Lifetime of a session JWT in seconds. Default 3600.
    public var sessionTTL: Int64
    /// Lifetime of a capability JWT in seconds. Default 120.
    public var capabilityTTL: Int64
    /// `aud` of capability JWTs. Default `api-service`.
    public var audience: String
    /// How many client addresses the dynamic-difficulty counters remember at most; when full, the address
    /// with the fewest recent challenges is forgotten first. Default 65 536 (4 MiB at most, allocated as
    /// it is used).
    public var counterCapacity: Int
    /// How many instances share the clients (`POSTERN_INSTANCES`): each counts only the challenges it issued,
    /// so a client's count is taken as that many times its own share, as an even balancer spreads them.
    /// Default 1.
    public var instances = 1
    /// Whether the per-client rate limits below apply (`POSTERN_RATE_LIMITS`). Default true.
    public var rateLimitsEnabled = true
    /// Per client address (IPv6 per /64), a token bucket per endpoint: challenges, session requests (each may cost
    /// a scrypt on the worker pool) and capability requests (each an RSA signature) per minute. Past them: 429 with
    /// `Retry-After`. Defaults 120, 60 and 300; each instance enforces its share of them (``instances``).
    public var challengesPerMinute = 120
    public var sessionsPerMinute = 60
    public var capabilitiesPerMinute = 300
    /// Buckets the rate-limit table holds at most. Default 65 536.
    public var rateLimitTableCapacity = 65_536

    /// Creates a configuration; every argument has the documented default.
    /// - Parameters:
    ///   - publicURL: base URL of this instance; trailing `/` characters are removed.
    ///   - issuer: `iss` of the tokens; `nil` means the (trimmed) public URL.
    ///   - powSalt: proof-of-work salt text.
    ///   - baseDifficulty: leading zero bits of a challenge before any raise (clamped to 0...256).
    ///   - maxDifficulty: cap of the dynamic raise (never below `baseDifficulty`).
    ///   - dynamicDifficulty: `false` keeps every challenge at `baseDifficulty`.
    ///   - inboxDomain: domain of agent inbox addresses.
    ///   - challengeTTL: challenge lifetime in seconds.
    ///   - sessionTTL: session lifetime in seconds.
    ///   - capabilityTTL: capability lifetime in seconds.
    ///   - audience: `aud` of capability tokens.
    ///   - counterCapacity: client addresses remembered by the difficulty counters.
    public init(
        publicURL: String = "http://localhost:8080",
        issuer: String? = nil,
        powSalt: String = AgentAuthConfiguration.defaultPoWSalt,
        baseDifficulty: Int = 6,
        maxDifficulty: Int = 18,
        dynamicDifficulty: Bool = true,
        inboxDomain: String = "agents.localhost",
        challengeTTL: Int64 = 180,
        sessionTTL: Int64 = 3600,
        capabilityTTL: Int64 = 120,
        audience: String = "api-service",
        counterCapacity: Int = 65_536
    ) {
        var trimmed = publicURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.publicURL = trimmed
        self.issuer = issuer ?? trimmed
        self.powSalt = powSalt
        self.baseDifficulty = min(max(baseDifficulty, 0), AgentProofOfWork.maximumDifficulty)
        self.maxDifficulty = min(max(maxDifficulty, self.baseDifficulty), AgentProofOfWork.maximumDifficulty)
        self.dynamicDifficulty = dynamicDifficulty
        self.inboxDomain = inboxDomain
        self.challengeTTL = challengeTTL
        self.sessionTTL = sessionTTL
        self.capabilityTTL = capabilityTTL
        self.audience = audience
        self.counterCapacity = counterCapacity
    }

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it);
    /// the public URL and issuer are the defaults' until the composition root knows them.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init()
        let config = config.scoped(to: "POSTERN_AGENT")
        // Read unclamped, so that an out-of-range difficulty is refused rather than quietly bounded.
        if let salt = config.text("POW_SALT") { powSalt = salt }
        if let bits = try config.integer("POW_DIFFICULTY") { baseDifficulty = bits }
        if let bits = try config.integer("POW_MAX_DIFFICULTY") { maxDifficulty = bits }
        if let on = try config.flag("POW_DYNAMIC") { dynamicDifficulty = on }
        if let domain = config.text("INBOX_DOMAIN") { inboxDomain = domain }
        if let bytes = try config.integer("INBOX_QUOTA") { inboxQuota = Int64(bytes) }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard inboxQuota >= 0 else {
            throw ConfigurationError(key: "POSTERN_AGENT_INBOX_QUOTA", message: "must not be negative")
        }
        guard (0...64).contains(baseDifficulty) else {
            throw ConfigurationError(key: "POSTERN_AGENT_POW_DIFFICULTY", message: "must be from 0 to 64")
        }
        guard maxDifficulty >= baseDifficulty, maxDifficulty <= 64 else {
            throw ConfigurationError(
                key: "POSTERN_AGENT_POW_MAX_DIFFICULTY",
                message: "must be at least POSTERN_AGENT_POW_DIFFICULTY and at most 64")
        }
        guard !powSalt.isEmpty else {
            throw ConfigurationError(key: "POSTERN_AGENT_POW_SALT", message: "must not be empty")
        }
    }
}
