import OutboundSocket

/// Why a fetch failed. Small and closed: callers map it to their own messages.
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an absolute, well-formed `http`/`https` URL (also a redirect `Location` that is not).
    case invalidURL
    /// A plain `http` URL where the ``OutboundPolicy`` asks for `https`.
    case insecureScheme
    /// The address policy refused the host or one of its addresses (of this category); no connection was
    /// attempted.
    case notAllowed(AddressCategory)
    /// The host name did not resolve.
    case resolutionFailed
    /// No vetted address accepted a TCP connection (refused, unreachable, or past the connect timeout).
    case connectFailed
    /// The whole fetch ran past its deadline.
    case timedOut
    /// The TLS handshake failed: untrusted chain, wrong host name, or protocol error.
    case tlsFailed
    /// The origin answered with a status outside 2xx (after following redirects).
    case badStatus(Int)
    /// More redirects than allowed.
    case tooManyRedirects
    /// The response was not valid HTTP/1.x, or the connection ended early.
    case malformedResponse
    /// The response body was larger than the configured limit.
    case bodyTooLarge
    /// Too many fetches are queued already; try again later.
    case overloaded

    /// A short description for logs (never contains the URL, which may carry credentials).
    public var description: String {
        switch self {
        case .invalidURL: return "invalid URL"
        case .insecureScheme: return "https required"
        case .notAllowed(let category): return "address not allowed (\(category.rawValue))"
        case .resolutionFailed: return "host did not resolve"
        case .connectFailed: return "connection failed"
        case .timedOut: return "timed out"
        case .tlsFailed: return "TLS handshake failed"
        case .badStatus(let code): return "status \(code)"
        case .tooManyRedirects: return "too many redirects"
        case .malformedResponse: return "malformed response"
        case .bodyTooLarge: return "body too large"
        case .overloaded: return "too many fetches queued"
        }
    }
}

extension FetchError {
    /// A socket-layer failure as a fetch's: the connection breaking mid-response is a malformed response.
    public init(_ error: SocketError) {
        switch error {
        case .notAllowed(let category): self = .notAllowed(category)
        case .resolutionFailed: self = .resolutionFailed
        case .connectFailed: self = .connectFailed
        case .timedOut: self = .timedOut
        case .tlsFailed: self = .tlsFailed
        case .broken: self = .malformedResponse
        case .overloaded: self = .overloaded
        }
    }

    /// Runs `body`, a call into the socket layer, with its error mapped to a fetch's.
    static func mapping<T>(_ body: () throws(SocketError) -> T) throws(FetchError) -> T {
        do { return try body() } catch { throw FetchError(error) }
    }
}
