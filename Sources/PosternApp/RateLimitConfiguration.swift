import AgentAuth
import JMAP
import MCPServer
import MailCX
import MailTM
import MailboxAccounts
import OAuthResource
import OAuthServer
import Owners
import RemoteHashAuth
import ServerKit

/// Whether rate limits apply and among how many instances: every surface takes both from here.
///
/// ## Configuration keys
/// - `POSTERN_RATE_LIMITS` (on or off, default on): ``enabled``.
/// - `POSTERN_INSTANCES` (1 to 1024, default 1): ``instances``.
public struct RateLimitConfiguration: Sendable {
    /// Whether rate limits apply. Default true; test suites turn them off.
    public var enabled = true
    /// How many instances serve the same clients behind one balancer: each enforces its share of every rate limit
    /// and counts a client's challenges as that many times its own, so that a client spreading its requests over all
    /// of them gets the documented limits, not this many times them. Default 1.
    public var instances = 1

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let on = try config.flag("POSTERN_RATE_LIMITS") { enabled = on }
        if let count = try config.integer("POSTERN_INSTANCES") { instances = count }
        try validate()
    }

    /// `surface` with this switch and this instance count: the one place every surface is given both.
    func applied<Surface: SharesRateLimits>(to surface: Surface) -> Surface {
        var surface = surface
        surface.rateLimitsEnabled = enabled
        surface.instances = instances
        return surface
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (1...1024).contains(instances) else {
            throw ConfigurationError(key: "POSTERN_INSTANCES", message: "must be from 1 to 1024")
        }
    }
}

/// A surface's configuration that takes the server's one rate-limit switch and instance count
/// (``RateLimitConfiguration/applied(to:)``).
protocol SharesRateLimits {
    /// Whether the surface's rate limits apply (`POSTERN_RATE_LIMITS`).
    var rateLimitsEnabled: Bool { get set }
    /// How many instances share each limit (`POSTERN_INSTANCES`).
    var instances: Int { get set }
}

extension AgentAuthConfiguration: SharesRateLimits {}
extension MailboxConfiguration: SharesRateLimits {}
extension OwnersConfiguration: SharesRateLimits {}
extension OAuthConfiguration: SharesRateLimits {}
extension JMAPConfiguration: SharesRateLimits {}
extension MCPConfiguration: SharesRateLimits {}
extension RemoteHashConfiguration: SharesRateLimits {}
extension MailTMConfiguration: SharesRateLimits {}
extension MailCXConfiguration: SharesRateLimits {}

/// `/api/v1/agents` keeps both in its ``OAuthResourceConfiguration/RateLimits``.
extension OAuthResourceConfiguration: SharesRateLimits {
    var rateLimitsEnabled: Bool {
        get { rateLimits.enabled }
        set { rateLimits.enabled = newValue }
    }
    var instances: Int {
        get { rateLimits.instances }
        set { rateLimits.instances = newValue }
    }
}
