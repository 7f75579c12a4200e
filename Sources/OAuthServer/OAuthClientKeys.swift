import Fetch
import JWT

/// The keys of the confidential clients that fetch theirs from a `jwks_uri` (`private_key_jwt`), fetched through the
/// outbound fetcher (its address policy, no redirects, a size cap) on first need and kept for ``documentLifetime``
/// seconds. An assertion whose `kid` the kept keys lack fetches the document again at most once every
/// ``refetchInterval`` seconds per URI, so that a stream of made-up kids cannot make the server fetch without end.
/// Concurrent assertions that need one URI's document share one fetch (Fetch's `SingleFlight`). Kept documents are at
/// most ``capacity``; past it, all are dropped.
actor OAuthClientKeys {
    /// How long a fetched JWKS is kept, seconds: an hour.
    static let documentLifetime: Int64 = 3600
    /// The least time between two fetches of one URI caused by an unknown kid, seconds: a minute.
    static let refetchInterval: Int64 = 60
    /// The most documents kept.
    static let capacity = 1_000

    private let fetcher: (any OAuthDocumentFetching)?
    private var kept: [String: (keys: PublishedKeySet, fetchedAt: Int64)] = [:]
    private let flights = SingleFlight<String, PublishedKeySet?, Never>()

    /// - Parameter fetcher: the outbound fetcher; nil: no `jwks_uri` can be read (such clients cannot authenticate).
    init(fetcher: (any OAuthDocumentFetching)?) {
        self.fetcher = fetcher
    }

    /// The keys at `uri`: the kept ones unless older than the lifetime, or, with `refresh` (an unknown kid), older
    /// than the refetch interval. Nil when they cannot be fetched or read.
    func keys(at uri: String, refresh: Bool, now: Int64) async -> PublishedKeySet? {
        if let (keys, fetchedAt) = kept[uri] {
            let age = now - fetchedAt
            if age < (refresh ? Self.refetchInterval : Self.documentLifetime) { return keys }
        }
        guard let fetcher else { return nil }
        let fetched = await flights.run(uri) {
            guard let document = await fetcher.document(at: uri) else { return nil }
            return try? PublishedKeySet(jwks: document.body)
        }
        guard let keys = fetched else { return kept[uri]?.keys }
        if kept.count >= Self.capacity { kept = [:] }
        kept[uri] = (keys, now)
        return keys
    }
}
