import AgentAuth
import ClientAddress
import DNS
import Foundation
import HTTP1
import JMAP
import OutboundQueue
import MCPServer
import JWT
import Logging
import MailboxAccounts
import OAuthServer
import Owners
import ServerKit
import SigningKeys

/// Everything Postern reads at start, validated. Built by ``ConfigurationLoader`` from the config file,
/// the process environment and command-line flags (later sources win), or directly in tests.
///
/// A composite: each surface's part reads and validates its own keys (``agent``, ``mailbox``, ``owners``, ``oauth``,
/// ``jmap``, ``mcp``); the keys below, not yet
/// moved to the surface that uses them, are read by ``ConfigurationLoader`` into the fields named after them.
///
/// ## Configuration keys
/// - `POSTERN_HOST`
/// - `POSTERN_PORT`
/// - `POSTERN_DATA_DIR`
/// - `POSTERN_DATABASE_URL`
/// - `POSTERN_PUBLIC_URL`
/// - `JWT_ISSUER`
/// - `JWT_PRIVATE_KEY`
/// - `JWT_PUBLIC_KEY`
/// - `POSTERN_KEY_SECRET`
/// - `POSTERN_KEY_RELOAD_SECONDS`
/// - `POSTERN_MAIL_CHANGES_KEPT`
/// - `POSTERN_AUDIT_DAYS`
/// - `POSTERN_KEY_PROMOTION_SECONDS`
/// - `POSTERN_LOG_LEVEL`
/// - `POSTERN_MAX_CONNECTIONS`
/// - `POSTERN_MAX_CONNECTIONS_PER_CLIENT`
/// - `POSTERN_EVENT_LOOPS`
/// - `POSTERN_SMTP`
/// - `POSTERN_SMTP_HOST`
/// - `POSTERN_SMTP_PORT`
/// - `POSTERN_SMTP_HOSTNAME`
/// - `POSTERN_SMTP_MAX_MESSAGE_BYTES`
/// - `POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT`
/// - `POSTERN_SMTP_MAX_SESSION_SECONDS`
/// - `POSTERN_SMTP_PROXY_PROTOCOL`
/// - `POSTERN_SMTP_TLS_CERT`
/// - `POSTERN_SMTP_TLS_KEY`
/// - `POSTERN_SANDBOX_SMTP_PORT`
/// - `POSTERN_SANDBOX_MAIL_AUTH`
/// - `POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH`
/// - `POSTERN_SMTP_ACCEPT`
/// - `POSTERN_RECIPIENT_DELIMITER`
/// - `POSTERN_CATCH_ALL_QUOTA`
/// - `POSTERN_OPERATOR_TOKEN`
/// - `POSTERN_MX_HOST`
/// - `POSTERN_DNS_RESOLVER`
/// - `POSTERN_RATE_LIMITS`
/// - `POSTERN_INSTANCES`
/// - `POSTERN_DRAIN_SECONDS`
/// - `POSTERN_TRUSTED_PROXIES`
/// - `POSTERN_METRICS_LISTEN`
/// - `POSTERN_METRICS_TOKEN`
/// - `POSTERN_OUTBOUND_ALLOW_PRIVATE` (also read as its older name `POSTERN_REMOTE_HASH_ALLOW_PRIVATE`)
/// - `POSTERN_OUTBOUND_ALLOWED_HOSTS` (also read as its older name `POSTERN_REMOTE_HASH_ALLOWED_HOSTS`)
/// - `POSTERN_WEBHOOK_RETRY_SECONDS`
public struct PosternConfiguration: Sendable {
    /// Listen address (`POSTERN_HOST`, default `127.0.0.1`).
    public var host = "127.0.0.1"
    /// Listen port (`POSTERN_PORT`, default 8080; 0 picks a free one).
    public var port = 8080
    /// SQLite database and generated keys (`POSTERN_DATA_DIR`, default `./data`).
    public var dataDirectory = "./data"
    /// Where accounts, tokens' epochs and mail live (`POSTERN_DATABASE_URL`): nil or empty for the data
    /// directory's SQLite file, `sqlite:///absolute/path` for another SQLite file, or
    /// `postgres://user:password@host:port/database` (also `postgresql://`, libpq's query options such as
    /// `sslmode=require` included) for PostgreSQL. See ``database``.
    public var databaseURL: String?
    /// Base URL used in `docs_url`, `llms.txt`, the OpenAPI `servers` entry and the HTML pages, and the
    /// issuer default (`POSTERN_PUBLIC_URL`). Default nil: the listener's own URL, real port included
    /// (see ``publicIdentity(listeningOn:port:)``).
    public var publicURL: String?
    /// `iss` of every token (`JWT_ISSUER`). Default nil: the public URL. Set, it must not be empty.
    public var issuer: String?
    /// PEM private key for RS256 (`JWT_PRIVATE_KEY`), literal `\n` meaning newline.
    public var jwtPrivateKeyPEM: String?
    /// PEM public key for RS256 (`JWT_PUBLIC_KEY`).
    public var jwtPublicKeyPEM: String?
    /// The operator's secret the signing keys are sealed under when they live in a PostgreSQL database
    /// (`POSTERN_KEY_SECRET`, at least 16 bytes; required there, unused on SQLite).
    public var keySecret: String?
    /// How often a running server re-reads its signing keys, in seconds (`POSTERN_KEY_RELOAD_SECONDS`, default 30).
    public var keyReloadSeconds = 30
    /// How many change-log rows each mail address keeps for JMAP's `*/changes` (`POSTERN_MAIL_CHANGES_KEPT`, default
    /// 10000, trimmed every minute); a client at an older state gets `cannotCalculateChanges` and starts over.
    public var mailChangesKept = 10000
    /// Days the audit trail keeps an event (`POSTERN_AUDIT_DAYS`, default 90, 1 to 3650); older ones are purged
    /// every 10 minutes.
    public var auditDays = 90
    /// JMAP's settings (`POSTERN_JMAP_*`); the composition root adds the base URL and what other surfaces share.
    public var jmap = JMAPConfiguration(baseURL: "")
    /// MCP's settings (`POSTERN_MCP_*`); the composition root adds the base URL and what other surfaces share.
    public var mcp = MCPConfiguration(baseURL: "")
    /// The outbound queue's settings (`POSTERN_OUTBOUND_SENDERS`, the per-sender limits, retries, queue lifetime,
    /// per-destination connections, suppression time).
    public var outboundQueue = OutboundQueueConfiguration()
    /// How long a rotated key is published before it signs, in seconds (`POSTERN_KEY_PROMOTION_SECONDS`).
    /// Default nil: the reload interval plus the JWKS cache time plus the 30 s verification leeway (for clock
    /// skew), so that every instance and every client's cached JWKS know a key before a token carries it.
    public var keyPromotionSeconds: Int?
    /// The agent surface's settings (`POSTERN_AGENT_*`); the composition root adds the public URL, the issuer and what
    /// other surfaces share.
    public var agent = AgentAuthConfiguration()
    /// The Mail.td surface's settings (`POSTERN_MAILBOX_*`, `POSTERN_BILLING_PORTAL_URL`); the composition root adds
    /// the issuer and what other surfaces share.
    public var mailbox = MailboxConfiguration()
    /// The owners' settings (`POSTERN_OWNER_*`); the composition root adds what other surfaces share.
    public var owners = OwnersConfiguration(publicURL: "")
    /// The authorization server's settings (`POSTERN_OAUTH_*`); the composition root adds the issuer and what other
    /// surfaces share.
    public var oauth = OAuthConfiguration(issuer: "")
    /// The host a custom domain's MX must name to route mail here (`POSTERN_MX_HOST`); nil: the host of
    /// `POSTERN_PUBLIC_URL`, else `localhost`.
    public var mxHost: String?
    /// The DNS resolver custom domains are checked with (`POSTERN_DNS_RESOLVER=host:port`); nil: /etc/resolv.conf's.
    public var dnsResolver: String?
    /// Whether rate limits apply (`POSTERN_RATE_LIMITS`).
    public var rateLimits = true
    /// How many instances serve the same clients behind one balancer (`POSTERN_INSTANCES`, default 1): each
    /// enforces its share of every rate limit and counts a client's challenges as that many times its own, so
    /// that a client spreading its requests over all of them gets the documented limits, not this many times them.
    public var instances = 1
    /// Seconds between SIGTERM and the shutdown during which `/readyz` fails and everything else is served
    /// (`POSTERN_DRAIN_SECONDS`, default 0): long enough for a balancer's health check to take the instance
    /// out, so that no request is sent on a connection the shutdown closes.
    public var drainSeconds = 0
    /// CIDRs whose `X-Forwarded-For` is believed (`POSTERN_TRUSTED_PROXIES`).
    public var trustedProxies: [String] = []
    /// Let outbound requests (remote-hash fetches, webhook deliveries) reach loopback, private, CGNAT and reserved
    /// addresses, and webhooks use plain `http` (`POSTERN_OUTBOUND_ALLOW_PRIVATE`; `POSTERN_REMOTE_HASH_ALLOW_PRIVATE`
    /// is its older alias). Default false. Link-local and cloud-metadata addresses open only through the host list.
    public var outboundAllowPrivate = false
    /// Hosts outbound requests may reach whatever they resolve to (`POSTERN_OUTBOUND_ALLOWED_HOSTS`;
    /// `POSTERN_REMOTE_HASH_ALLOWED_HOSTS` is its older alias).
    public var outboundAllowedHosts: [String] = []
    /// The delays in seconds before each retry of a failed webhook delivery (`POSTERN_WEBHOOK_RETRY_SECONDS`,
    /// comma-separated; default `30,120,600,3600,21600`: 6 attempts in all, the last about 7 h 12 min after the
    /// first). After the last retry fails the webhook's status becomes `failed`.
    public var webhookRetrySeconds: [Int] = [30, 120, 600, 3600, 21600]
    /// Log level (`POSTERN_LOG_LEVEL`: trace, debug, info, notice, warning, error, critical).
    public var logLevel = "info"
    /// Maximum simultaneous client connections (`POSTERN_MAX_CONNECTIONS`).
    public var maxConnections = 4096
    /// Most simultaneous HTTP connections from one client address, the socket peer, IPv6 per /64
    /// (`POSTERN_MAX_CONNECTIONS_PER_CLIENT`, default 512; 0 for none, as behind a proxy whose address every
    /// connection has).
    public var maxConnectionsPerClient = 512
    /// Most simultaneous SMTP sessions from one client address (`POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT`,
    /// default 16; 0 for none).
    public var smtpMaxConnectionsPerClient = 16
    /// Whether SMTP connections from `trustedProxies` begin with a PROXY protocol header naming the client
    /// (`POSTERN_SMTP_PROXY_PROTOCOL`): a balancer in TCP mode such as HAProxy with `send-proxy`.
    public var smtpProxyProtocol = false
    /// Longest an SMTP session may last, however busy (`POSTERN_SMTP_MAX_SESSION_SECONDS`, default 1800); then
    /// `421 4.4.2` and close.
    public var smtpMaxSessionSeconds = 1800
    /// Event loops serving HTTP and SMTP (`POSTERN_EVENT_LOOPS`, as nginx's `worker_processes`). Default nil:
    /// one per processor the process may run on.
    public var eventLoops: Int?
    /// Whether the SMTP listener runs (`POSTERN_SMTP`, default on: a local stand-in receives mail).
    public var smtpEnabled = true
    /// SMTP listen address (`POSTERN_SMTP_HOST`). Default nil: the HTTP listen address.
    public var smtpHost: String?
    /// SMTP listen port (`POSTERN_SMTP_PORT`, default 2525; 0 picks a free one).
    public var smtpPort = 2525
    /// The name SMTP greets with (`POSTERN_SMTP_HOSTNAME`, default `localhost`).
    public var smtpHostname = "localhost"
    /// Largest message SMTP takes, in bytes (`POSTERN_SMTP_MAX_MESSAGE_BYTES`, default 25 MiB).
    public var smtpMaxMessageBytes = 25 * 1024 * 1024
    /// The PEM certificate chain SMTP's STARTTLS presents (`POSTERN_SMTP_TLS_CERT`, with `POSTERN_SMTP_TLS_KEY`).
    /// Set, the main SMTP listener offers STARTTLS too; unset, only the sandbox listener does, with a self-signed
    /// pair generated into the data directory (`smtp-tls-cert.pem`, `smtp-tls-key.pem`) on first start.
    public var smtpTLSCertificate: String?
    /// The PEM private key of ``smtpTLSCertificate`` (`POSTERN_SMTP_TLS_KEY`).
    public var smtpTLSKey: String?
    /// The SMTP sandbox's submission listener (`POSTERN_SANDBOX_SMTP_PORT`, default 2587; `0` picks a free port as
    /// `POSTERN_SMTP_PORT=0` does, `off` turns it off, and so does `POSTERN_SMTP=off`). Here nil is off.
    public var sandboxSMTPPort: Int? = 2587
    /// Whether the sandbox checks SPF, DKIM and DMARC of what it captures (`POSTERN_SANDBOX_MAIL_AUTH`, default on);
    /// off, nothing is looked up in DNS and every verdict is `none`.
    public var sandboxMailAuth = true
    /// The profile whose defaults fill in what no flag, environment variable or named configuration file sets
    /// (`POSTERN_PROFILE` or `--profile`: `default` or `test`; see ``ConfigurationProfile``).
    public var profile = ConfigurationProfile.standard
    /// Whether ``dataDirectory`` is a temporary directory of the test profile, removed when `serve` exits.
    public var removeDataDirectoryAtExit = false
    /// Whether the sandbox takes AUTH before STARTTLS from a loopback client (`POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH`:
    /// `loopback`, the default, or `never`). Nobody else may, ever.
    public var sandboxPlaintextAuthOnLoopback = true
    /// Whether SMTP keeps mail for unknown local users and other domains in the catch-all (`POSTERN_SMTP_ACCEPT=any`)
    /// instead of refusing it with `550` (`local`, the default). Nothing is ever relayed.
    public var smtpAcceptAny = false
    /// The subaddress delimiters (`POSTERN_RECIPIENT_DELIMITER`, default `+`; empty turns subaddressing off):
    /// `alice+tag@dom` is delivered to `alice@dom` when `alice+tag` itself is no account.
    public var recipientDelimiter = "+"
    /// Bytes the catch-all may hold (`POSTERN_CATCH_ALL_QUOTA`, default 1 GiB); past it, `552 5.2.2`.
    public var catchAllQuota: Int64 = 1 << 30
    /// The bearer token of the operator's HTTP routes (`POSTERN_OPERATOR_TOKEN`, at least 32 characters). Unset
    /// (the default): those routes answer 404.
    public var operatorToken: String?
    /// Where `/metrics` is served instead of the main port (`POSTERN_METRICS_LISTEN`, `host:port` or `[v6]:port`; port
    /// 0 picks a free one). Unset (the default): on the main port, behind ``metricsToken`` when that is set.
    public var metricsListen: String?
    /// The bearer token `/metrics` requires wherever it is served (`POSTERN_METRICS_TOKEN`, at least 32 characters);
    /// unset, it is open (to whoever reaches its listener).
    public var metricsToken: String?

    /// ``metricsListen`` as a host and a port; nil when unset or malformed (``validate()`` refuses the latter).
    public var metricsListenAddress: (host: String, port: Int)? {
        guard let metricsListen, let colon = metricsListen.lastIndex(of: ":"),
            let port = Int(metricsListen[metricsListen.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        var host = String(metricsListen[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address must be bracketed
        }
        return host.isEmpty ? nil : (host, port)
    }

    /// A configuration with every default.
    public init() {}

    /// The most event loops a process runs (each is a thread with an epoll set).
    public static let maxEventLoops = 256

    /// The database ``databaseURL`` names.
    public enum DatabaseLocation: Sendable, Equatable {
        /// A SQLite file.
        case sqlite(path: String)
        /// A PostgreSQL server (the URL as libpq takes it).
        case postgres(url: String)
    }

    /// Where the database is, from ``databaseURL`` and ``dataDirectory``.
    /// - Throws: `ConfigurationError` naming `POSTERN_DATABASE_URL` for any other scheme (the URL itself is
    ///   never echoed: it may hold a password).
    public func database() throws -> DatabaseLocation {
        guard let url = databaseURL?.trimmingCharacters(in: .whitespaces), !url.isEmpty else {
            return .sqlite(path: DataDirectory.databasePath(dataDirectory))
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") { return .postgres(url: url) }
        if url.hasPrefix("sqlite://") {
            let path = String(url.dropFirst("sqlite://".count))
            guard path.hasPrefix("/"), path.count > 1 else {
                throw ConfigurationError(
                    key: "POSTERN_DATABASE_URL",
                    message: "sqlite:// needs an absolute path: sqlite:///var/lib/postern/db")
            }
            return .sqlite(path: path)
        }
        throw ConfigurationError(
            key: "POSTERN_DATABASE_URL",
            message: "must be sqlite:///absolute/path or postgres://user:password@host:port/database, or unset")
    }

    /// The promotion delay in effect: ``keyPromotionSeconds`` or its default.
    public var effectiveKeyPromotionSeconds: Int {
        keyPromotionSeconds ?? keyReloadSeconds + CommonRoutes.jwksMaxAge + Int(JWTKeySet.maximumLeeway)
    }

    /// Refuses a configuration the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if case .postgres = try database(), (keySecret ?? "").utf8.count < DatabaseKeyStore.minimumSecretLength {
            throw ConfigurationError(
                key: "POSTERN_KEY_SECRET",
                message:
                    "must be set to at least \(DatabaseKeyStore.minimumSecretLength) bytes (e.g. openssl rand -hex "
                    + "32) when POSTERN_DATABASE_URL is PostgreSQL: the signing keys live in the database, sealed under "
                    + "it, and every instance needs the same")
        }
        guard (0...300).contains(drainSeconds) else {
            throw ConfigurationError(key: "POSTERN_DRAIN_SECONDS", message: "must be from 0 to 300")
        }
        guard (1...1024).contains(instances) else {
            throw ConfigurationError(key: "POSTERN_INSTANCES", message: "must be from 1 to 1024")
        }
        guard (1...3600).contains(keyReloadSeconds) else {
            throw ConfigurationError(key: "POSTERN_KEY_RELOAD_SECONDS", message: "must be from 1 to 3600")
        }
        try owners.validate()
        try oauth.validate()
        guard (1...20).contains(webhookRetrySeconds.count), webhookRetrySeconds.allSatisfy({ (1...86_400).contains($0) })
        else {
            throw ConfigurationError(
                key: "POSTERN_WEBHOOK_RETRY_SECONDS", message: "must be 1 to 20 delays of 1 to 86400 seconds")
        }
        guard (100...10_000_000).contains(mailChangesKept) else {
            throw ConfigurationError(key: "POSTERN_MAIL_CHANGES_KEPT", message: "must be from 100 to 10000000")
        }
        guard (1...3650).contains(auditDays) else {
            throw ConfigurationError(key: "POSTERN_AUDIT_DAYS", message: "must be from 1 to 3650")
        }
        if let keyPromotionSeconds, !(0...86400).contains(keyPromotionSeconds) {
            throw ConfigurationError(key: "POSTERN_KEY_PROMOTION_SECONDS", message: "must be from 0 to 86400")
        }
        if let issuer, issuer.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ConfigurationError(
                key: "JWT_ISSUER", message: "must not be empty: set it, or leave it unset to use the public URL")
        }
        guard (0...65535).contains(port) else {
            throw ConfigurationError(key: "POSTERN_PORT", message: "must be from 0 to 65535")
        }
        guard (0...65535).contains(smtpPort) else {
            throw ConfigurationError(key: "POSTERN_SMTP_PORT", message: "must be from 0 to 65535")
        }
        if let sandboxSMTPPort, !(0...65535).contains(sandboxSMTPPort) {
            throw ConfigurationError(
                key: "POSTERN_SANDBOX_SMTP_PORT", message: "must be off, or from 0 (a free port) to 65535")
        }
        if (smtpTLSCertificate == nil) != (smtpTLSKey == nil) {
            throw ConfigurationError(
                key: smtpTLSCertificate == nil ? "POSTERN_SMTP_TLS_CERT" : "POSTERN_SMTP_TLS_KEY",
                message: "POSTERN_SMTP_TLS_CERT and POSTERN_SMTP_TLS_KEY are set together or not at all")
        }
        guard catchAllQuota > 0 else {
            throw ConfigurationError(key: "POSTERN_CATCH_ALL_QUOTA", message: "must be positive")
        }
        if let operatorToken, operatorToken.utf8.count < 32 {
            throw ConfigurationError(key: "POSTERN_OPERATOR_TOKEN", message: "must be at least 32 characters")
        }
        if metricsListen != nil, metricsListenAddress == nil {
            throw ConfigurationError(
                key: "POSTERN_METRICS_LISTEN", message: "must be host:port or [v6]:port, e.g. 127.0.0.1:9090")
        }
        if let metricsToken, metricsToken.utf8.count < 32 {
            throw ConfigurationError(key: "POSTERN_METRICS_TOKEN", message: "must be at least 32 characters")
        }
        guard recipientDelimiter.allSatisfy({ $0 != "@" && $0.isASCII && !$0.isWhitespace && !$0.isLetter }) else {
            throw ConfigurationError(
                key: "POSTERN_RECIPIENT_DELIMITER", message: "must be ASCII punctuation or digits, without @")
        }
        guard (1024...(1 << 30)).contains(smtpMaxMessageBytes) else {
            throw ConfigurationError(key: "POSTERN_SMTP_MAX_MESSAGE_BYTES", message: "must be from 1024 to 1073741824")
        }
        try agent.validate()
        try mailbox.validate()
        if let publicURL {
            guard let url = URL(string: publicURL), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil
            else {
                throw ConfigurationError(
                    key: "POSTERN_PUBLIC_URL",
                    message: "must be an absolute http or https URL, or unset to follow the listen address")
            }
        }
        if let dnsResolver, DNSServerAddress(dnsResolver) == nil {
            throw ConfigurationError(
                key: "POSTERN_DNS_RESOLVER", message: "must be an IP address with an optional port (host:port, [v6]:port)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ConfigurationError(
                key: "POSTERN_LOG_LEVEL", message: "must be trace, debug, info, notice, warning, error or critical")
        }
        guard maxConnectionsPerClient >= 0, smtpMaxConnectionsPerClient >= 0 else {
            throw ConfigurationError(
                key: "POSTERN_MAX_CONNECTIONS_PER_CLIENT", message: "must be 0 (no cap) or positive")
        }
        guard smtpMaxSessionSeconds > 0 else {
            throw ConfigurationError(key: "POSTERN_SMTP_MAX_SESSION_SECONDS", message: "must be positive")
        }
        try jmap.validate()
        try outboundQueue.validate()
        guard maxConnections > 0 else {
            throw ConfigurationError(key: "POSTERN_MAX_CONNECTIONS", message: "must be positive")
        }
        if let eventLoops, !(1...Self.maxEventLoops).contains(eventLoops) {
            throw ConfigurationError(
                key: "POSTERN_EVENT_LOOPS",
                message: "must be 1 to \(Self.maxEventLoops), or unset for one per processor")
        }
        if smtpProxyProtocol && trustedProxies.isEmpty {
            throw ConfigurationError(
                key: "POSTERN_SMTP_PROXY_PROTOCOL",
                message: "needs POSTERN_TRUSTED_PROXIES: the balancers whose connections carry the header")
        }
        for cidr in trustedProxies where IPNetwork(cidr) == nil {
            throw ConfigurationError(
                key: "POSTERN_TRUSTED_PROXIES", message: "\"\(cidr)\" is not a CIDR such as 10.0.0.0/8")
        }
    }
}

/// A configuration value that cannot be used; the message names the key (declared in ServerKit, where every
/// surface's configuration type throws it).
public typealias ConfigurationError = ServerKit.ConfigurationError
