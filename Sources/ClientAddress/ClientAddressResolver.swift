/// Decides which address a request counts against: the peer, or, when the peer is a trusted proxy,
/// the nearest untrusted hop of `X-Forwarded-For`.
public struct ClientAddressResolver: Sendable {
    /// The blocks whose `X-Forwarded-For` is believed.
    public let trustedProxies: [IPNetwork]

    /// Creates a resolver from CIDR texts; unparsable entries are dropped.
    public init(trustedProxies: [String]) {
        self.trustedProxies = trustedProxies.compactMap(IPNetwork.init)
    }

    /// The resolver that trusts no proxy: every request counts against its socket peer.
    public static let direct = ClientAddressResolver(trustedProxies: [])

    /// Whether `address` belongs to a trusted proxy.
    public func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// The client address for a request from `peer` carrying these `X-Forwarded-For` values.
    ///
    /// Walks the forwarded chain from the right, skipping trusted proxies; the first untrusted hop is
    /// the client. A malformed hop stops the walk at the last good address. `nil` when the peer itself
    /// cannot be parsed (then the caller counts the raw text).
    public func resolve(peer: String, forwardedFor: [String]) -> IPAddress? {
        guard let peerAddress = IPAddress(peer) else { return nil }
        guard isTrusted(peerAddress), !forwardedFor.isEmpty else { return peerAddress }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { String($0) }
        var client = peerAddress
        for hop in hops.reversed() {
            guard let address = IPAddress(hop) else { break }
            client = address
            if !isTrusted(address) { break }
        }
        return client
    }
}
