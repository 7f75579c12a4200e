import ClientAddress
import ConfigurationReading

/// The PROXY protocol header the SMTP listener and the mail doors' listeners take (HAProxy's `send-proxy`): one rule for
/// all, checked against the HTTP listener's trusted proxies, whose connections are the ones that carry the header.
protocol ProxyHeaderConfiguration {
    /// Whether connections from the trusted proxies begin with a PROXY protocol header naming the client.
    var proxyProtocol: Bool { get }
    /// The key that turns ``proxyProtocol`` on, named when it is refused.
    var proxyProtocolKey: String { get }
}

extension ProxyHeaderConfiguration {
    /// Refuses ``proxyProtocol`` without trusted proxies: their connections are the ones that carry the header.
    /// - Throws: ``ConfigurationError`` naming ``proxyProtocolKey``.
    func validate(trustedProxies: [String]) throws {
        if proxyProtocol && trustedProxies.isEmpty {
            throw ConfigurationError(
                key: proxyProtocolKey,
                message: "needs POSTERN_TRUSTED_PROXIES: the balancers whose connections carry the header")
        }
    }

    /// The peers whose connections begin with the header: the trusted proxies when ``proxyProtocol`` is on, else none.
    func proxyHeaderPeers(trustedProxies: [String]) -> [IPNetwork] {
        proxyProtocol ? trustedProxies.compactMap(IPNetwork.init) : []
    }
}
