import HTTP1

/// Building the URLs the authorization endpoint redirects to.
enum OAuthURL {
    /// `base` with `parameters` appended to its query (`?` or `&`), each name and value percent-encoded.
    static func appending(_ parameters: [(String, String)], to base: String) -> String {
        PercentEncoding.appending(parameters, to: base)
    }

    /// The host of an absolute URL, for people to read.
    static func host(_ url: String) -> String { WebOrigin(url)?.host ?? url }
}
