import ClientAddress
import Foundation

/// What a running server calls itself: the base URL of every link it prints and the `iss` of every token.
///
/// Fixed once the listening socket is bound, so that with port 0 or any other port the links name the
/// real port. Every surface, `/llms.txt`, `docs_url`, the OpenAPI `servers` entry and the HTML pages take
/// it from here.
public struct PublicIdentity: Sendable, Equatable {
    /// The base URL, without a trailing slash (`http://127.0.0.1:8080`, `https://auth.example.com`).
    public let baseURL: String
    /// The `iss` of every token minted, and the issuer every token presented must carry.
    public let issuer: String

    /// Creates an identity.
    /// - Parameters:
    ///   - baseURL: an absolute http or https URL without a trailing slash.
    ///   - issuer: a non-empty issuer.
    public init(baseURL: String, issuer: String) {
        self.baseURL = baseURL
        self.issuer = issuer
    }

    /// `http://host:port` for a listener. A wildcard address, which no client can connect to, becomes the
    /// loopback address of its family (`0.0.0.0` and the empty host: `127.0.0.1`; `::`: `[::1]`); an IPv6
    /// literal is bracketed (a zone's `%` written `%25`, RFC 6874); a host name stays as written.
    public static func listenerURL(host: String, port: Int) -> String {
        let address = host.isEmpty ? IPAddress("0.0.0.0") : IPAddress(host)
        if let address, address.bytes.allSatisfy({ $0 == 0 }) {
            return "http://" + authority(host: address.isIPv4 ? "127.0.0.1" : "::1", port: port)
        }
        return "http://" + authority(host: host, port: port)
    }

    /// `host:port` as a URL writes it: an IPv6 literal bracketed, a zone's `%` written `%25` (RFC 6874).
    public static func authority(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host.replacingOccurrences(of: "%", with: "%25"))]:\(port)" : "\(host):\(port)"
    }
}
