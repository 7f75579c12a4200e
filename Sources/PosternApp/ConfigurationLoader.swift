import AgentAuth
import Configuration
import Foundation
import JMAP
import OutboundQueue
import MailboxAccounts
import MCPServer
import OAuthServer
import Owners
import ServerKit
import SystemPackage

/// Reads ``PosternConfiguration`` through swift-configuration: command-line overrides first, then the
/// process environment, then the config file (`POSTERN_CONFIG`, default `config/postern.env`).
///
/// The default file is optional, so that `postern serve` runs from any directory with flags and the
/// environment alone; a file named by `--config` or `POSTERN_CONFIG` must exist.
///
/// Keys are the environment names of `config/postern.env` (`POSTERN_PORT`, `JWT_ISSUER`, ...). Values are
/// read as text and parsed here so that a bad value is refused with a message naming its key instead of
/// silently falling back to a default.
public enum ConfigurationLoader {
    /// The default configuration file, relative to the working directory.
    public static let defaultConfigPath = "config/postern.env"

    /// Loads and validates the configuration.
    /// - Parameters:
    ///   - configPath: An explicit file (from `--config`); a missing explicit file is an error.
    ///   - environment: The process environment; its `POSTERN_CONFIG` is an explicit file too.
    ///   - overrides: Values from command-line flags, keyed by environment name.
    ///   - defaultPath: The file read when none is named; skipped when missing.
    /// - Throws: ``ConfigurationError`` naming the key at fault, or the file error.
    public static func load(
        configPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: [String: String] = [:],
        defaultPath: String = defaultConfigPath
    ) async throws -> PosternConfiguration {
        let explicitPath = configPath ?? environment["POSTERN_CONFIG"]
        let path = explicitPath ?? defaultPath
        let file: EnvironmentVariablesProvider
        do {
            file = try await EnvironmentVariablesProvider(
                environmentFilePath: FilePath(path), allowMissing: explicitPath == nil)
        } catch {
            throw ConfigurationError(key: "POSTERN_CONFIG", message: "cannot read \"\(path)\": \(error)")
        }
        let flags = EnvironmentVariablesProvider(environmentVariables: overrides)
        let process = EnvironmentVariablesProvider(environmentVariables: environment)
        func lookup(_ reader: ConfigReader) -> (String) -> String? {
            { name in
                reader.string(
                    forKey: ConfigKey(name.lowercased().split(separator: "_").map(String.init)),
                    isSecret: name.hasPrefix("JWT_PRIVATE") || name == "POSTERN_KEY_SECRET")
            }
        }
        // A profile's defaults rank below every flag, environment variable and named file, and above the default
        // file, whose values are the same defaults the profile replaces.
        let explicit: [any ConfigProvider] = explicitPath == nil ? [flags, process] : [flags, process, file]
        let profile = try ConfigurationProfile.named(lookup(ConfigReader(providers: [flags, process, file]))("POSTERN_PROFILE"))
        var providers = explicit
        if !profile.defaults.isEmpty { providers.append(EnvironmentVariablesProvider(environmentVariables: profile.defaults)) }
        if explicitPath == nil { providers.append(file) }
        var configuration = try parse(lookup(ConfigReader(providers: providers)))
        configuration.profile = profile
        if profile.usesTemporaryDataDirectory, lookup(ConfigReader(providers: explicit))("POSTERN_DATA_DIR") == nil {
            configuration.dataDirectory = NSTemporaryDirectory() + "postern-test-" + UUID().uuidString
            configuration.removeDataDirectoryAtExit = true
        }
        return configuration
    }

    /// Builds a configuration from a lookup of environment-named keys; used by ``load`` and by tests.
    /// - Throws: ``ConfigurationError`` for a value that does not parse or validate.
    public static func parse(_ value: (String) -> String?) throws -> PosternConfiguration {
        try withoutActuallyEscaping(value) { value in try parse(ConfigurationReader(value)) }
    }

    /// Builds a configuration from `config`: each surface's part reads its own keys (``AgentAuthConfiguration``, ``MailboxConfiguration``,
    /// ``OwnersConfiguration``,
    /// ``OAuthConfiguration``, ``JMAPConfiguration``, ``MCPConfiguration``, ``OutboundQueueConfiguration``), the rest are read here.
    /// - Throws: ``ConfigurationError`` for a value that does not parse or validate.
    static func parse(_ config: ConfigurationReader) throws -> PosternConfiguration {
        var c = PosternConfiguration()
        c.agent = try AgentAuthConfiguration(config: config)
        c.mailbox = try MailboxConfiguration(config: config)
        c.owners = try OwnersConfiguration(config: config)
        c.oauth = try OAuthConfiguration(config: config)
        c.jmap = try JMAPConfiguration(config: config)
        c.mcp = try MCPConfiguration(config: config)
        c.outboundQueue = try OutboundQueueConfiguration(config: config)
        let value = { (key: String) in config.value(key) }
        func text(_ key: String, _ apply: (String) -> Void) {
            if let v = value(key)?.trimmingCharacters(in: .whitespaces) { apply(v) }
        }
        func integer(_ key: String, _ apply: (Int) -> Void) throws {
            guard let v = value(key)?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return }
            guard let n = Int(v) else {
                throw ConfigurationError(key: key, message: "must be an integer (got \"\(v)\")")
            }
            apply(n)
        }
        func flag(_ key: String, _ apply: (Bool) -> Void) throws {
            guard let v = value(key)?.trimmingCharacters(in: .whitespaces).lowercased(), !v.isEmpty else { return }
            switch v {
            case "on", "true", "yes", "1": apply(true)
            case "off", "false", "no", "0": apply(false)
            default: throw ConfigurationError(key: key, message: "must be on or off (got \"\(v)\")")
            }
        }
        func choice(_ key: String, _ allowed: [String], _ apply: (String) -> Void) throws {
            guard let v = value(key)?.trimmingCharacters(in: .whitespaces).lowercased(), !v.isEmpty else { return }
            guard allowed.contains(v) else {
                throw ConfigurationError(
                    key: key, message: "must be \(allowed.joined(separator: " or ")) (got \"\(v)\")")
            }
            apply(v)
        }
        func list(_ key: String, _ apply: ([String]) -> Void) {
            text(key) { v in
                apply(v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            }
        }
        func pem(_ key: String) -> String? {
            guard let v = value(key), !v.isEmpty else { return nil }
            return v.replacingOccurrences(of: "\\n", with: "\n")
        }

        text("POSTERN_HOST") { c.host = $0 }
        try integer("POSTERN_PORT") { c.port = $0 }
        text("POSTERN_DATA_DIR") { c.dataDirectory = $0 }
        text("POSTERN_DATABASE_URL") { c.databaseURL = $0 }
        text("POSTERN_PUBLIC_URL") { c.publicURL = $0 }
        text("JWT_ISSUER") { c.issuer = $0 }
        c.jwtPrivateKeyPEM = pem("JWT_PRIVATE_KEY")
        c.jwtPublicKeyPEM = pem("JWT_PUBLIC_KEY")
        if let v = value("POSTERN_KEY_SECRET"), !v.isEmpty { c.keySecret = v }
        try integer("POSTERN_KEY_RELOAD_SECONDS") { c.keyReloadSeconds = $0 }
        try integer("POSTERN_KEY_PROMOTION_SECONDS") { c.keyPromotionSeconds = $0 }
        try integer("POSTERN_MAIL_CHANGES_KEPT") { c.mailChangesKept = $0 }
        try integer("POSTERN_AUDIT_DAYS") { c.auditDays = $0 }
        text("POSTERN_MX_HOST") { c.mxHost = $0 }
        text("POSTERN_DNS_RESOLVER") { c.dnsResolver = $0 }
        try flag("POSTERN_RATE_LIMITS") { c.rateLimits = $0 }
        try integer("POSTERN_INSTANCES") { c.instances = $0 }
        try integer("POSTERN_DRAIN_SECONDS") { c.drainSeconds = $0 }
        list("POSTERN_TRUSTED_PROXIES") { c.trustedProxies = $0 }
        // The older remote-hash names are aliases; the outbound names win when both are set.
        try flag("POSTERN_REMOTE_HASH_ALLOW_PRIVATE") { c.outboundAllowPrivate = $0 }
        try flag("POSTERN_OUTBOUND_ALLOW_PRIVATE") { c.outboundAllowPrivate = $0 }
        list("POSTERN_REMOTE_HASH_ALLOWED_HOSTS") { c.outboundAllowedHosts = $0 }
        list("POSTERN_OUTBOUND_ALLOWED_HOSTS") { c.outboundAllowedHosts = $0 }
        if let v = value("POSTERN_WEBHOOK_RETRY_SECONDS")?.trimmingCharacters(in: .whitespaces), !v.isEmpty {
            let delays = v.split(separator: ",", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            guard delays.allSatisfy({ $0 != nil }) else {
                throw ConfigurationError(
                    key: "POSTERN_WEBHOOK_RETRY_SECONDS", message: "must be comma-separated seconds (got \"\(v)\")")
            }
            c.webhookRetrySeconds = delays.compactMap { $0 }
        }
        text("POSTERN_LOG_LEVEL") { c.logLevel = $0.lowercased() }
        try integer("POSTERN_MAX_CONNECTIONS") { c.maxConnections = $0 }
        try integer("POSTERN_MAX_CONNECTIONS_PER_CLIENT") { c.maxConnectionsPerClient = $0 }
        try integer("POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT") { c.smtpMaxConnectionsPerClient = $0 }
        try flag("POSTERN_SMTP_PROXY_PROTOCOL") { c.smtpProxyProtocol = $0 }
        try integer("POSTERN_SMTP_MAX_SESSION_SECONDS") { c.smtpMaxSessionSeconds = $0 }
        try integer("POSTERN_EVENT_LOOPS") { c.eventLoops = $0 }
        try flag("POSTERN_SMTP") { c.smtpEnabled = $0 }
        text("POSTERN_SMTP_HOST") { c.smtpHost = $0 }
        try integer("POSTERN_SMTP_PORT") { c.smtpPort = $0 }
        text("POSTERN_SMTP_HOSTNAME") { c.smtpHostname = $0 }
        try integer("POSTERN_SMTP_MAX_MESSAGE_BYTES") { c.smtpMaxMessageBytes = $0 }
        text("POSTERN_SMTP_TLS_CERT") { c.smtpTLSCertificate = $0.isEmpty ? nil : $0 }
        text("POSTERN_SMTP_TLS_KEY") { c.smtpTLSKey = $0.isEmpty ? nil : $0 }
        if let v = value("POSTERN_SANDBOX_SMTP_PORT")?.trimmingCharacters(in: .whitespaces).lowercased(), !v.isEmpty {
            guard v == "off" || Int(v) != nil else {
                throw ConfigurationError(
                    key: "POSTERN_SANDBOX_SMTP_PORT", message: "must be off or a port from 0 to 65535 (got \"\(v)\")")
            }
            c.sandboxSMTPPort = Int(v)
        }
        try flag("POSTERN_SANDBOX_MAIL_AUTH") { c.sandboxMailAuth = $0 }
        try choice("POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH", ["loopback", "never"]) {
            c.sandboxPlaintextAuthOnLoopback = $0 == "loopback"
        }
        try choice("POSTERN_SMTP_ACCEPT", ["local", "any"]) { c.smtpAcceptAny = $0 == "any" }
        text("POSTERN_RECIPIENT_DELIMITER") { c.recipientDelimiter = $0 }
        try integer("POSTERN_CATCH_ALL_QUOTA") { c.catchAllQuota = Int64($0) }
        if let v = value("POSTERN_OPERATOR_TOKEN"), !v.isEmpty { c.operatorToken = v }
        text("POSTERN_METRICS_LISTEN") { c.metricsListen = $0.isEmpty ? nil : $0 }
        if let v = value("POSTERN_METRICS_TOKEN"), !v.isEmpty { c.metricsToken = v }
        try c.validate()
        return c
    }
}
