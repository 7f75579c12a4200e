import ClientAddress
import HTTP1

/// What the server learns about a request before any surface sees it, resolved once per request by the
/// composition root: who the client is, the key it is counted under, and the request id. Surfaces read
/// it and never resolve an address themselves.
public struct RequestContext: Sendable {
    /// The client's address: the socket peer, or, when the peer is a trusted proxy, the nearest untrusted
    /// hop of `X-Forwarded-For` (see `ClientAddressResolver`). Nil when the peer is not an IP address.
    public let clientAddress: IPAddress?
    /// The key rate limits and counting windows charge the client under (IPv6 per /64; a peer that is
    /// not an address by its text).
    public let clientKey: ClientAddressKey
    /// The request id: the client's `X-Request-Id` when sane, otherwise the server's.
    public let requestID: String

    /// The context of `request`: its socket peer, its `X-Forwarded-For` values believed only from
    /// `trustedProxies`, and its request id.
    /// - Parameters:
    ///   - request: the request as the server parsed it.
    ///   - trustedProxies: the proxies whose `X-Forwarded-For` is believed; by default none.
    public init(_ request: HTTPRequest, trustedProxies: ClientAddressResolver = .direct) {
        let address = trustedProxies.resolve(
            peer: request.remoteAddress, forwardedFor: request.headers.values("X-Forwarded-For"))
        clientAddress = address
        clientKey = address.map(ClientAddressKey.init) ?? ClientAddressKey(peer: request.remoteAddress)
        requestID = request.requestID
    }
}
