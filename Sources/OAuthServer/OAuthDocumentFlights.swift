/// One fetch per client metadata document at a time: concurrent authorization requests for the same `client_id` URL
/// share the fetch in flight instead of each fetching it (N browsers sent to one app's authorize link, or one
/// attacker's burst, cause one request to the document's host).
actor OAuthDocumentFlights {
    private var running: [String: Task<OAuthClient?, any Error>] = [:]

    /// The answer of `load` for `url`: the one already running for `url` when there is one, else a new run that
    /// later callers for `url` share until it ends.
    /// - Throws: what `load` throws (every sharer sees it).
    func client(_ url: String, _ load: @escaping @Sendable () async throws -> OAuthClient?) async throws
        -> OAuthClient?
    {
        if let flight = running[url] { return try await flight.value }
        let flight = Task { try await load() }
        running[url] = flight
        defer { running[url] = nil }
        return try await flight.value
    }
}
