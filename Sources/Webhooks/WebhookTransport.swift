import Fetch

/// Sends one webhook POST and says what came of it; ``FetcherWebhookTransport`` is the real one.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` with `headers` to `url`. Never throws: every failure is a result with an error text.
    func post(_ url: String, headers: [(String, String)], body: [UInt8]) async -> WebhookAttemptResult
}

/// Webhook deliveries through the server's one outbound ``Fetcher``: its I/O threads (never a socket queue), its
/// timeouts and TLS checks, the ``OutboundPolicy`` vetted before anything is sent and every resolved address vetted
/// again by the fetcher, no redirects followed (a 3xx is a failed attempt), and the response body not read.
public struct FetcherWebhookTransport: WebhookTransport {
    let fetcher: Fetcher
    let policy: OutboundPolicy

    /// - Parameters:
    ///   - fetcher: the shared outbound fetcher (its configuration carries `policy`'s addresses).
    ///   - policy: the outbound policy, for the scheme and the checks that need no lookup.
    public init(fetcher: Fetcher, policy: OutboundPolicy) {
        self.fetcher = fetcher
        self.policy = policy
    }

    public func post(_ url: String, headers: [(String, String)], body: [UInt8]) async -> WebhookAttemptResult {
        let start = ContinuousClock.now
        func elapsed() -> Int64 {
            let duration = ContinuousClock.now - start
            return duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        }
        do {
            _ = try policy.vet(url)
            let response = try await fetcher.post(url, headers: headers, body: body, readingBody: false)
            let ok = (200...299).contains(response.status)
            return WebhookAttemptResult(
                statusCode: response.status, error: ok ? nil : "HTTP \(response.status)", durationMS: elapsed())
        } catch {
            let text = error == .timedOut ? "timeout" : error.description
            return WebhookAttemptResult(statusCode: nil, error: text, durationMS: elapsed())
        }
    }
}
