import ClientAddress
import HTTP1

/// What the server knows about a request before any surface sees it, built once per request by the
/// composition root: who the client is, the key it is counted under, and the request id. Surfaces read
/// it and never resolve an address themselves.
///
/// The client is resolved when a surface asks (`clientAddress`, `clientKey`), not when the context is
/// built: most requests (health checks, token checks) never ask, and parsing the peer's address text
/// for each of them cost a tenth of a `/healthz` request's CPU.
public struct RequestContext: Sendable {
    private let peer: String
    private let headers: HTTPHeaders
    private let trustedProxies: ClientAddressResolver
    /// The request id: the client's `X-Request-Id` when sane, otherwise the server's.
    public let requestID: String

    /// The context of `request`: its socket peer, its `X-Forwarded-For` values believed only from
    /// `trustedProxies`, and its request id.
    /// - Parameters:
    ///   - request: the request as the server parsed it.
    ///   - trustedProxies: the proxies whose `X-Forwarded-For` is believed; by default none.
    public init(_ request: HTTPRequest, trustedProxies: ClientAddressResolver = .direct) {
        peer = request.remoteAddress
        headers = request.headers
        self.trustedProxies = trustedProxies
        requestID = request.requestID
    }

    /// The client's address: the socket peer, or, when the peer is a trusted proxy, the nearest untrusted
    /// hop of `X-Forwarded-For` (see `ClientAddressResolver`). Nil when the peer is not an IP address.
    public var clientAddress: IPAddress? {
        trustedProxies.resolve(peer: peer, forwardedFor: headers.values("X-Forwarded-For"))
    }

    /// The key rate limits and counting windows charge the client under (IPv6 per /64; a peer that is
    /// not an address by its text). Resolves the client each time: read it once per request.
    public var clientKey: ClientAddressKey {
        clientAddress.map(ClientAddressKey.init) ?? ClientAddressKey(peer: peer)
    }
}
