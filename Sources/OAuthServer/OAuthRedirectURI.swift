/// A redirect URI as registration (RFC 7591, client metadata documents) and the authorization endpoint read it:
/// `https://host[:port][/path][?query]` with a DNS host of LDH labels (an IDN in its `xn--` form) or an IPv4
/// literal, or `http` on a loopback host (`localhost`, `127.0.0.1`, `[::1]`); a port of 1 to 65535; printable ASCII
/// without a fragment or user info. Pure.
///
/// What passes here is safe to name in the consent page's `Content-Security-Policy` (``cspSource``): the host can
/// hold no `;`, `*`, `%` or space that would end or widen the directive.
struct OAuthRedirectURI: Equatable {
    /// `https` or `http`, lowercase.
    let scheme: String
    /// The host, lowercase (`[::1]` with its brackets).
    let host: String
    /// The port when one is written.
    let port: Int?
    /// The path and query, exactly as written.
    let rest: Substring

    /// The loopback IP literals whose redirect URIs match on any port (RFC 8252 section 7.3). `localhost` is not
    /// among them: it names whatever the resolver says, so it is matched exactly (RFC 8252 section 8.3).
    static let loopbackLiterals: Set<String> = ["127.0.0.1", "[::1]"]
    /// The hosts an `http` redirect URI may name (contract 1.6: "https or loopback http only").
    static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// The parts of `uri`, or nil when it is not an allowed redirect URI.
    init?(_ uri: String) {
        guard uri.utf8.count <= 2_048, uri.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !uri.contains("#") else {
            return nil
        }
        let lower = uri.lowercased()
        let after: Substring
        if lower.hasPrefix("https://") {
            scheme = "https"
            after = uri.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            scheme = "http"
            after = uri.dropFirst(7)
        } else {
            return nil
        }
        let authority = after.prefix { $0 != "/" && $0 != "?" }
        rest = after.dropFirst(authority.count)
        let hostText: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostText = authority[...close]
            let tail = authority[authority.index(after: close)...]
            guard tail.isEmpty || tail.hasPrefix(":") else { return nil }
            portText = tail.isEmpty ? nil : tail.dropFirst()
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            hostText = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        host = hostText.lowercased()
        if let portText {
            guard let port = Self.port(portText) else { return nil }
            self.port = port
        } else {
            port = nil
        }
        if scheme == "http" {
            guard Self.loopbackHosts.contains(host) else { return nil }
        } else {
            // An https IPv6 literal cannot be named in CSP's host grammar; loopback http uses `http:` there.
            guard Self.isDNSName(host) else { return nil }
        }
    }

    /// Whether `uri` is an allowed redirect URI.
    static func allowed(_ uri: String) -> Bool { OAuthRedirectURI(uri) != nil }

    /// Whether `requested` is one of `registered`: equal as strings, or, for `http` on a loopback IP literal, equal
    /// but for the port (RFC 8252 section 7.3: a native app's loopback listener takes whatever port is free).
    static func matches(_ requested: String, registered: [String]) -> Bool {
        guard let asked = OAuthRedirectURI(requested) else { return false }
        if registered.contains(requested) { return true }
        guard asked.scheme == "http", loopbackLiterals.contains(asked.host), requested.hasPrefix("http://") else {
            return false
        }
        return registered.contains { text in
            guard text.hasPrefix("http://"), let uri = OAuthRedirectURI(text) else { return false }
            return uri.host == asked.host && uri.rest == asked.rest
        }
    }

    /// The source that lets the consent form's POST redirect here (CSP `form-action`, which browsers apply to the
    /// redirect after the form's POST): the origin, or `http:` for `[::1]`, which CSP's host grammar cannot name.
    var cspSource: String {
        if host.hasPrefix("[") { return "http:" }
        let defaultPort = scheme == "https" ? 443 : 80
        return scheme + "://" + host + (port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }

    /// A port: 1 to 5 digits naming 1 to 65535.
    private static func port(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let number = Int(text), (1...65_535).contains(number)
        else { return nil }
        return number
    }

    /// A DNS name of LDH labels (letters, digits, hyphens; 1 to 63 each, no hyphen first or last; at most 253 in
    /// all): IDNs in their ASCII (`xn--`) form, IPv4 literals too; no `;`, `*`, `%`, `_` or empty label.
    static func isDNSName(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        return host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            label.utf8.count >= 1 && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        }
    }
}
