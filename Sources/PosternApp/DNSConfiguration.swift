import DNS
import Foundation
import ServerKit

/// The server in DNS: the host a custom domain's MX must name, and the resolver custom domains are checked with and
/// the SMTP sandbox authenticates senders through.
///
/// ## Configuration keys
/// - `POSTERN_MX_HOST` (a host name, default the public URL's host, else `localhost`): ``mxHost``.
/// - `POSTERN_DNS_RESOLVER` (`host:port` or `[v6]:port`, default /etc/resolv.conf's): ``resolver``.
public struct DNSConfiguration: Sendable {
    /// The host a custom domain's MX must name to route mail here. Default nil: see ``mxHost(publicURL:)``.
    public var mxHost: String?
    /// The DNS resolver (`host:port`). Default nil: the first `nameserver` of /etc/resolv.conf.
    public var resolver: String?

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming `POSTERN_DNS_RESOLVER` when it is no IP address.
    public init(config: ConfigurationReader) throws {
        mxHost = config.text("POSTERN_MX_HOST")
        resolver = config.text("POSTERN_DNS_RESOLVER")
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let resolver, DNSServerAddress(resolver) == nil {
            throw ConfigurationError(
                key: "POSTERN_DNS_RESOLVER",
                message: "must be an IP address with an optional port (host:port, [v6]:port)")
        }
    }

    /// The host custom domains' MX records must name: ``mxHost``, else the host of `publicURL`, else `localhost`.
    public func mxHost(publicURL: String?) -> String {
        mxHost ?? publicURL.flatMap { URL(string: $0)?.host } ?? "localhost"
    }
}
