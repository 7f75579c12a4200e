import HTTP1

/// Building the URLs the authorization endpoint redirects to.
enum OAuthURL {
    /// `base` with `parameters` appended to its query (`?` or `&`), each name and value percent-encoded.
    static func appending(_ parameters: [(String, String)], to base: String) -> String {
        let query = parameters.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(separator: "&")
        return base + (base.contains("?") ? "&" : "?") + query
    }

    /// `scheme://authority` of an absolute URL (for the consent page's `form-action`), lowercased scheme; nil when
    /// `url` is not one.
    static func origin(_ url: String) -> String? {
        guard let range = url.range(of: "://") else { return nil }
        let authority = url[range.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty else { return nil }
        return url[..<range.lowerBound].lowercased() + "://" + authority
    }

    /// The host of an absolute URL, for people to read.
    static func host(_ url: String) -> String {
        guard let origin = origin(url), let range = origin.range(of: "://") else { return url }
        let authority = origin[range.upperBound...]
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") { return String(authority[...close]) }
        return String(authority.prefix { $0 != ":" })
    }
}
