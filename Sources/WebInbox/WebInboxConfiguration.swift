import Owners

/// The web inbox's settings. The composition root sets them from the owners' (the public URL, the session lifetime,
/// the sign-in backoff), so that both page families behave alike.
public struct WebInboxConfiguration: Sendable {
    /// The public base URL, for example `http://localhost:8080`: the HTML part's CSP names its `cid:` route under it,
    /// `postern web link` prints links under it, and cookies carry `Secure` when it is https.
    public var publicURL: String
    /// Seconds a web-inbox session lasts from sign-in. Default 12 hours.
    public var sessionLifetime: Int64 = 12 * 3600
    /// Seconds a one-time link stays usable. Default 10 minutes.
    public var linkLifetime: Int64 = 600
    /// Seconds a signed `cid:` image URL of an HTML part stays valid. Default 1 hour.
    public var inlineImageLifetime: Int64 = 3600
    /// Messages per list page. Default 50.
    public var pageSize = 50
    /// How failed sign-ins slow an address or email (the owners' rules).
    public var backoff = OwnerBackoff()
    /// The largest form body, in bytes. Default 16 KiB.
    public var bodyLimit = 16 * 1024
    /// The largest body of a message an owner sends (the compose form), in bytes. Default 256 KiB.
    public var composeBodyLimit = 256 * 1024

    /// - Parameter publicURL: the public base URL.
    public init(publicURL: String) {
        self.publicURL = publicURL
    }

    /// The base URL without a trailing `/`.
    var baseURL: String {
        publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
    }

    /// Whether cookies carry `Secure`: the public URL is https.
    public var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }
}
