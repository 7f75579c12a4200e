import ConfigurationReading
import Foundation

/// The relying party's identity: its RP ID and the origins a passkey ceremony may run on.
///
/// ``init(config:)`` reads the operator's keys from a reader of whole names (it scopes itself to `POSTERN_WEBAUTHN`);
/// the composition root checks them against the public URL with ``validate(publicURL:)`` and builds the
/// ``RelyingParty`` with ``relyingParty(publicURL:)``. Passkeys are bound to the RP ID: changing it (or the public
/// URL's host when it is unset) makes every registered passkey unusable (docs/configuration.md).
///
/// ## Configuration keys
/// - `POSTERN_WEBAUTHN_RP_ID` (a domain name, default the public URL's host): ``relyingPartyID``.
/// - `POSTERN_WEBAUTHN_ORIGINS` (comma-separated origins, default none): ``extraOrigins``.
public struct WebAuthnConfiguration: Sendable, Equatable {
    /// The RP ID, lowercased. Default nil: the public URL's host. Set, it must be that host or a registrable suffix of
    /// it (`example.com` for `https://auth.example.com`), never a bare top-level name or an IP address.
    public var relyingPartyID: String?
    /// Origins besides the public URL's own that may run a ceremony (`https://host[:port]`, or
    /// `http://localhost[:port]`, whose host is the RP ID or under it). Default none.
    public var extraOrigins: [String] = []

    /// The defaults.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse.
    public init(config: ConfigurationReader) throws {
        self.init()
        let config = config.scoped(to: "POSTERN_WEBAUTHN")
        if let id = config.text("RP_ID") { relyingPartyID = id.lowercased() }
        if let origins = config.list("ORIGINS") { extraOrigins = origins }
        try validate()
    }

    /// Refuses values that are unusable whatever the public URL, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let relyingPartyID, !Self.isDomainName(relyingPartyID) {
            throw ConfigurationError(
                key: "POSTERN_WEBAUTHN_RP_ID",
                message: "must be a domain name such as example.com (no scheme, port, path or IP address)")
        }
        for origin in extraOrigins where Self.origin(origin) == nil {
            throw ConfigurationError(
                key: "POSTERN_WEBAUTHN_ORIGINS",
                message: "\(origin) is not an origin: https://host[:port] (http only for localhost), no path")
        }
    }

    /// Refuses an RP ID that does not fit the public URL, and extra origins outside the RP ID, naming the key. With
    /// no public URL set (the listener's URL stands in), a set RP ID is refused: its host is not known to be the RP
    /// ID's.
    /// - Parameter publicURL: `POSTERN_PUBLIC_URL` as set, or nil.
    /// - Throws: ``ConfigurationError``.
    public func validate(publicURL: String?) throws {
        try validate()
        guard let publicURL else {
            if relyingPartyID != nil {
                throw ConfigurationError(
                    key: "POSTERN_WEBAUTHN_RP_ID", message: "needs the public URL set, with a host equal to or under it"
                )
            }
            return
        }
        guard let host = Self.host(ofURL: publicURL) else { return }
        let id = relyingPartyID ?? host
        if let relyingPartyID, !Self.isRegistrableSuffix(relyingPartyID, of: host) {
            throw ConfigurationError(
                key: "POSTERN_WEBAUTHN_RP_ID",
                message: "must be the public URL's host (\(host)) or a registrable suffix of it")
        }
        for origin in extraOrigins {
            guard let originHost = Self.origin(origin)?.host, Self.isRegistrableSuffix(id, of: originHost) else {
                throw ConfigurationError(
                    key: "POSTERN_WEBAUTHN_ORIGINS", message: "\(origin) is not on the RP ID \(id) or under it")
            }
        }
    }

    /// The relying party of a server whose public base URL is `publicURL`: the RP ID (set, or the URL's host) and the
    /// URL's origin followed by the extra origins. Nil when the RP ID is not a domain name (a public URL on an IP
    /// address, as the listener's default is): browsers run no ceremony there.
    public func relyingParty(publicURL: String) -> RelyingParty? {
        let own = Self.origin(publicURL, allowPath: true)
        guard let id = relyingPartyID ?? Self.host(ofURL: publicURL), Self.isDomainName(id) else { return nil }
        let origins = ([own?.serialized].compactMap { $0 } + extraOrigins.compactMap { Self.origin($0)?.serialized })
        var unique: [String] = []
        for origin in origins where !unique.contains(origin) { unique.append(origin) }
        return RelyingParty(id: id, origins: unique)
    }

    /// A URL's origin as browsers serialize it (`scheme://host[:port]`, lowercase, the default port left out);
    /// nil for anything but an http(s) URL with a host and no user info, or (`https` aside) a host that is not
    /// localhost.
    static func origin(_ text: String, allowPath: Bool = false) -> (serialized: String, host: String)? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
            !host.isEmpty, url.user == nil, url.password == nil, url.query == nil, url.fragment == nil
        else { return nil }
        guard allowPath || url.path.isEmpty else { return nil }
        guard scheme == "https" || (scheme == "http" && (host == "localhost" || host.hasSuffix(".localhost"))) else {
            return nil
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? ""
        return ("\(scheme)://\(host)\(port)", host)
    }

    /// The host of an http(s) URL, lowercased.
    static func host(ofURL text: String) -> String? {
        URL(string: text)?.host?.lowercased()
    }

    /// Whether `name` is a domain name an RP ID may be: dot-separated labels of letters, digits and hyphens, not all
    /// digits (no IPv4 address), no colon (no IPv6 address).
    static func isDomainName(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 253, !labels.isEmpty else { return false }
        let allowed = labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") }
        }
        let numeric = labels.last.map { $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        return allowed && numeric != true
    }

    /// Whether `id` is `host` or a registrable suffix of it on a label boundary. Without the public suffix list, a
    /// suffix must have at least two labels (`com` is refused, `example.com` taken; a public suffix such as `co.uk`
    /// is not recognized, and browsers refuse it at the ceremony).
    static func isRegistrableSuffix(_ id: String, of host: String) -> Bool {
        if id == host { return true }
        return host.hasSuffix("." + id) && id.contains(".")
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
