import Foundation
import SMTPClient
import ConfigurationReading

/// How mail for outside recipients leaves this server: not at all (`off`, today's outbox), straight to each
/// domain's mail exchangers (`direct`), or through a smarthost (`relay`); and how strictly it is encrypted.
///
/// ``init(config:)`` reads the operator's keys and refuses a bad value naming its key. The relay password is kept
/// in ``relay`` and never shown: ``description`` prints the URL with `***` in its place.
///
/// ## Configuration keys
/// - `POSTERN_OUTBOUND_DELIVERY` (`off`, `direct` or `relay`; default `off`): ``mode``.
/// - `POSTERN_RELAY_URL` (`smtp://user:password@host:587` or `smtps://...`; required for `relay`): ``relay``.
/// - `POSTERN_OUTBOUND_SMTP_PORT` (1 to 65535, default 25): ``smtpPort``, the port of MX hosts in `direct`.
/// - `POSTERN_OUTBOUND_TLS` (`opportunistic` or `required`, default `opportunistic`): ``tls``.
/// - `POSTERN_OUTBOUND_TRUST_CA_FILE` (a PEM file, default the system's trust roots): ``trustCAFile``.
public struct OutboundConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// Where outside mail goes.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Nowhere: outside recipients stay in the outbox (`postern mail outbox`).
        case off
        /// To each recipient domain's MX hosts (A/AAAA when it has none), MTA-STS honoured.
        case direct
        /// To the smarthost of ``OutboundConfiguration/relay``.
        case relay
    }

    /// Where outside mail goes. Default ``Mode/off``.
    public var mode: Mode = .off
    /// The smarthost (`relay` mode); nil otherwise unless set.
    public var relay: RelayEndpoint?
    /// The port mail exchangers are reached on in `direct` mode. Default 25; tests point it at a loopback server.
    public var smtpPort = 25
    /// STARTTLS whenever offered (``SMTPTLSPolicy/opportunistic``, the default) or always
    /// (``SMTPTLSPolicy/required``: a receiver without it gets no mail, the message waits in the queue).
    public var tls: SMTPTLSPolicy = .opportunistic
    /// Trust roots (PEM) for certificates that must verify (MTA-STS `enforce`, the smarthost) instead of the
    /// system's; for tests. Nil: the system's.
    public var trustCAFile: String?

    /// The defaults (`off`).
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse, or `POSTERN_RELAY_URL` when
    ///   `relay` mode has none.
    public init(config: ConfigurationReader) throws {
        if let mode = try config.choice("POSTERN_OUTBOUND_DELIVERY", Mode.allCases.map(\.rawValue)) {
            self.mode = Mode(rawValue: mode) ?? .off
        }
        if let url = config.raw("POSTERN_RELAY_URL")?.trimmingCharacters(in: .whitespaces), !url.isEmpty {
            do {
                relay = try RelayEndpoint(url: url)
            } catch {
                throw config.error("POSTERN_RELAY_URL", error.description)
            }
        }
        if let port = try config.integer("POSTERN_OUTBOUND_SMTP_PORT") {
            guard (1...65535).contains(port) else {
                throw config.error("POSTERN_OUTBOUND_SMTP_PORT", "must be 1 to 65535 (got \(port))")
            }
            smtpPort = port
        }
        if let tls = try config.choice("POSTERN_OUTBOUND_TLS", ["opportunistic", "required"]) {
            self.tls = tls == "required" ? .required : .opportunistic
        }
        trustCAFile = config.nonEmptyText("POSTERN_OUTBOUND_TRUST_CA_FILE")
        try validate()
    }

    /// Refuses settings outbound delivery cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if mode == .relay && relay == nil {
            throw ConfigurationError(
                key: "POSTERN_RELAY_URL", message: "is required when POSTERN_OUTBOUND_DELIVERY is relay")
        }
        guard (1...65535).contains(smtpPort) else {
            throw ConfigurationError(key: "POSTERN_OUTBOUND_SMTP_PORT", message: "must be 1 to 65535")
        }
        guard tls != .disabled else {
            throw ConfigurationError(key: "POSTERN_OUTBOUND_TLS", message: "must be opportunistic or required")
        }
    }

    /// The settings with the relay password hidden.
    public var description: String {
        var parts = ["mode: \(mode.rawValue)", "tls: \(tls.rawValue)", "smtp port: \(smtpPort)"]
        if let relay { parts.append("relay: \(relay)") }
        if let trustCAFile { parts.append("trust CA file: \(trustCAFile)") }
        return "OutboundConfiguration(" + parts.joined(separator: ", ") + ")"
    }
}
