/// Why an outbound connection failed, before any protocol spoke on it. Small and closed: the HTTP client
/// (`SocketError`) and the SMTP client map it to their own outcomes.
public enum SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The address policy refused the host or one of its addresses (of this category); no connection was
    /// attempted.
    case notAllowed(AddressCategory)
    /// The host name did not resolve.
    case resolutionFailed
    /// No vetted address accepted a TCP connection (refused, unreachable, or past the connect timeout).
    case connectFailed
    /// The deadline passed.
    case timedOut
    /// The TLS handshake failed (untrusted chain, wrong host name, protocol error), or the trust roots could not
    /// be read.
    case tlsFailed
    /// The connection broke during a read or a write.
    case broken
    /// Too many name lookups are outstanding already; try again later.
    case overloaded

    /// A short description for logs and delivery diagnostics.
    public var description: String {
        switch self {
        case .notAllowed(let category): return "address not allowed (\(category.rawValue))"
        case .resolutionFailed: return "host did not resolve"
        case .connectFailed: return "connection failed"
        case .timedOut: return "timed out"
        case .tlsFailed: return "TLS handshake failed"
        case .broken: return "connection broken"
        case .overloaded: return "too many lookups outstanding"
        }
    }
}
