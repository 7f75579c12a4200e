import HTTP1

/// Building the URLs the authorization endpoint redirects to.
enum OAuthURL {
    /// `base` with `parameters` appended to its query (`?` or `&`), each name and value percent-encoded.
    static func appending(_ parameters: [(String, String)], to base: String) -> String {
        let query = parameters.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(separator: "&")
        return base + (base.contains("?") ? "&" : "?") + query
    }

    /// The host of an absolute URL, for people to read.
    static func host(_ url: String) -> String { WebOrigin(url)?.host ?? url }
}
