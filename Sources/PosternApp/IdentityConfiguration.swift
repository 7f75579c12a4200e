import Foundation
import ServerKit

/// What the server calls itself when the operator names it: the public base URL and the tokens' issuer. Unset, both
/// follow the listener (see ``PublicIdentity``).
///
/// ## Configuration keys
/// - `POSTERN_PUBLIC_URL` (an absolute http or https URL, default the listener's): ``publicURL``.
/// - `JWT_ISSUER` (not empty, default the public URL): ``issuer``.
public struct IdentityConfiguration: Sendable {
    /// Base URL used in `docs_url`, `llms.txt`, the OpenAPI `servers` entry and the HTML pages, and the issuer
    /// default. Default nil: the listener's own URL, real port included (see ``publicIdentity(listeningOn:port:)``).
    public var publicURL: String?
    /// `iss` of every token. Default nil: the public URL. Set, it must not be empty.
    public var issuer: String?

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that is not usable.
    public init(config: ConfigurationReader) throws {
        publicURL = config.text("POSTERN_PUBLIC_URL")
        issuer = config.text("JWT_ISSUER")
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let publicURL {
            guard let url = URL(string: publicURL), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil
            else {
                throw ConfigurationError(
                    key: "POSTERN_PUBLIC_URL",
                    message: "must be an absolute http or https URL, or unset to follow the listen address")
            }
        }
        if let issuer, issuer.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ConfigurationError(
                key: "JWT_ISSUER", message: "must not be empty: set it, or leave it unset to use the public URL")
        }
    }

    /// The identity of a server listening on `host:port`: ``publicURL`` when set (a configured URL always wins; a
    /// trailing slash is dropped), else ``PublicIdentity/listenerURL(host:port:)``; ``issuer`` when set, else that
    /// base URL.
    /// - Parameters:
    ///   - host: the address the socket was bound with.
    ///   - port: the real bound port (never 0 for a bound socket).
    public func publicIdentity(listeningOn host: String, port: Int) -> PublicIdentity {
        var baseURL = publicURL ?? PublicIdentity.listenerURL(host: host, port: port)
        if baseURL.hasSuffix("/") { baseURL.removeLast() }
        return PublicIdentity(baseURL: baseURL, issuer: issuer ?? baseURL)
    }
}
