import Fetch

/// Finds the client a `client_id` names: a registered one in `oauth_clients`, or, when metadata documents are on,
/// the document at an https `client_id`, fetched through ``Fetch`` (its address policy: no private, loopback or
/// link-local address unless the operator allowed that host; no redirect; a size cap) and cached in
/// `oauth_clients` for as long as its `Cache-Control` says (5 minutes to a day). Concurrent lookups of one document
/// share one fetch (Fetch's `SingleFlight`).
struct OAuthClientDirectory: Sendable {
    let store: OAuthClientStore
    /// Nil: client ID metadata documents are off.
    let fetcher: (any OAuthDocumentFetching)?
    let configuration: OAuthConfiguration
    let flights = SingleFlight<String, OAuthClient?, any Error>()

    /// The client `clientID` names, or nil when none (unknown, or a document that cannot be fetched or is refused).
    func client(id clientID: String, now: Int64) async throws -> OAuthClient? {
        guard let fetcher, OAuthClientMetadataDocument.isDocumentURL(clientID) else {
            return try await store.client(id: clientID)
        }
        if let cached = try await store.cachedDocument(id: clientID, now: now) { return cached }
        let (store, configuration) = (store, configuration)
        return try await flights.run(clientID) {
            // A flight that ended between the look above and this one has cached the document.
            if let cached = try await store.cachedDocument(id: clientID, now: now) { return cached }
            guard let document = await fetcher.document(at: clientID),
                let registration = try? OAuthClientMetadataDocument.registration(
                    url: clientID, body: document.body, configuration: configuration)
            else { return nil }
            let until = now + OAuthClientMetadataDocument.lifetime(cacheControl: document.cacheControl)
            try await store.cacheDocument(id: clientID, registration, now: now, until: until)
            return try await store.client(id: clientID)
        }
    }
}
