import Fetch

/// A client ID metadata document as fetched: the 200 answer's body and its `Cache-Control`.
public struct OAuthFetchedDocument: Sendable, Equatable {
    /// The document's bytes.
    public let body: [UInt8]
    /// The answer's `Cache-Control`, which decides how long the document is kept.
    public let cacheControl: String?

    /// - Parameters:
    ///   - body: the document's bytes.
    ///   - cacheControl: the answer's `Cache-Control`, if any.
    public init(body: [UInt8], cacheControl: String?) {
        self.body = body
        self.cacheControl = cacheControl
    }
}

/// What fetches client ID metadata documents; `Fetch.Fetcher` is the real one (with its address policy, no
/// redirects and a size cap, as `Surfaces` configures it).
public protocol OAuthDocumentFetching: Sendable {
    /// The document at `url` when it answered 200 without a redirect; nil on any failure.
    func document(at url: String) async -> OAuthFetchedDocument?
}

extension Fetcher: OAuthDocumentFetching {
    /// Fetches `url` with this fetcher's policy; nil unless it answered 200 without a redirect.
    public func document(at url: String) async -> OAuthFetchedDocument? {
        guard let response = try? await fetch(url), response.status == 200, response.redirects == 0 else { return nil }
        return OAuthFetchedDocument(body: response.body, cacheControl: response.head["Cache-Control"])
    }
}
