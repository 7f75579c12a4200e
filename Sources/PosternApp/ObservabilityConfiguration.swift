import Logging
import ServerKit

/// What the server tells its operator: the log level and where `/metrics` is served, behind which token.
///
/// ## Configuration keys
/// - `POSTERN_LOG_LEVEL` (trace, debug, info, notice, warning, error or critical; default info): ``logLevel``.
/// - `POSTERN_METRICS_LISTEN` (`host:port` or `[v6]:port`, default the main port): ``metricsListen``.
/// - `POSTERN_METRICS_TOKEN` (at least 32 characters, default none): ``metricsToken``.
public struct ObservabilityConfiguration: Sendable {
    /// Log level. Default `info`: one access-log line per request.
    public var logLevel = "info"
    /// Where `/metrics` is served instead of the main port (`host:port` or `[v6]:port`; port 0 picks a free one).
    /// Default nil: on the main port, behind ``metricsToken`` when that is set.
    public var metricsListen: String?
    /// The bearer token `/metrics` requires wherever it is served; unset, it is open (to whoever reaches its
    /// listener).
    public var metricsToken: String?

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that is not usable.
    public init(config: ConfigurationReader) throws {
        if let level = config.text("POSTERN_LOG_LEVEL") { logLevel = level.lowercased() }
        metricsListen = config.nonEmptyText("POSTERN_METRICS_LISTEN")
        metricsToken = config.raw("POSTERN_METRICS_TOKEN")
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ConfigurationError(
                key: "POSTERN_LOG_LEVEL", message: "must be trace, debug, info, notice, warning, error or critical")
        }
        if metricsListen != nil, metricsListenAddress == nil {
            throw ConfigurationError(
                key: "POSTERN_METRICS_LISTEN", message: "must be host:port or [v6]:port, e.g. 127.0.0.1:9090")
        }
        if let metricsToken, metricsToken.utf8.count < 32 {
            throw ConfigurationError(key: "POSTERN_METRICS_TOKEN", message: "must be at least 32 characters")
        }
    }

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
}
