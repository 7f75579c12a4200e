import Metrics

/// How an access-token verification ended: the `result` label of `postern_oauth_token_verifications_total`.
public enum OAuthVerificationResult: String, CaseIterable, Sendable {
    /// The token verified and its grant is live.
    case valid
    /// Not a well-formed at+jwt, an unknown key, another algorithm, or a bad signature.
    case invalid
    /// Past its `exp`.
    case expired
    /// Minted for a resource this route does not serve.
    case wrongAudience = "wrong_audience"
    /// Of another issuer.
    case wrongIssuer = "wrong_issuer"
    /// No access token of that `jti` was issued here, or its row disagrees with the claims.
    case unknownGrant = "unknown_grant"
    /// Its grant was revoked or reached the end of its rotation chain.
    case revoked
}

/// `postern_oauth_token_verifications_total{result}`, through the swift-metrics facade.
struct OAuthResourceMetrics: Sendable {
    private let counters: [OAuthVerificationResult: Counter]

    init(factory: any MetricsFactory) {
        var counters: [OAuthVerificationResult: Counter] = [:]
        for result in OAuthVerificationResult.allCases {
            counters[result] = Counter(
                label: "postern_oauth_token_verifications_total", dimensions: [("result", result.rawValue)],
                factory: factory)
        }
        self.counters = counters
    }

    func count(_ result: OAuthVerificationResult) {
        counters[result]?.increment()
    }
}
