import Metrics

/// The metrics the mailbox surface records through the swift-metrics facade.
///
/// Created once, in ``MailboxAccountService``'s initialiser, from the factory it is given (by default
/// `MetricsSystem.factory`: bootstrap the metrics system before creating the service).
package struct MailboxMetrics: Sendable {
    /// Result label values of `postern_pow_verifications_total{surface="mailbox"}`.
    package enum VerificationResult: String, CaseIterable, Sendable {
        /// The proof had enough zero bits and consumed its challenge.
        case valid
        /// Too few leading zero bits, or a malformed nonce.
        case insufficientBits = "insufficient_bits"
        /// The proof was right but the challenge had already been used.
        case replayed
    }

    /// `postern_pow_verifications_total{surface="mailbox",result=...}`.
    private let verifications: [VerificationResult: Counter]
    /// `postern_rate_limit_rejections_total{surface="mailbox",class=...}`.
    private let rejections: [MailboxRateClass: Counter]
    /// `postern_mailbox_accounts_created_total{plan="free"|"pro"}`.
    private let created: [Bool: Counter]

    init(factory: any MetricsFactory) {
        verifications = Self.counters(VerificationResult.allCases, "postern_pow_verifications_total", factory) {
            [("surface", "mailbox"), ("result", $0.rawValue)]
        }
        rejections = Self.counters(MailboxRateClass.allCases, "postern_rate_limit_rejections_total", factory) {
            [("surface", "mailbox"), ("class", $0.metricName)]
        }
        created = Self.counters([false, true], "postern_mailbox_accounts_created_total", factory) {
            [("plan", $0 ? "pro" : "free")]
        }
    }

    /// One counter of `label` for each of `keys`, each with the dimensions `dimensions` gives it.
    private static func counters<Key: Hashable>(
        _ keys: [Key], _ label: String, _ factory: any MetricsFactory, dimensions: (Key) -> [(String, String)]
    ) -> [Key: Counter] {
        Dictionary(
            uniqueKeysWithValues: keys.map { key in
                (key, Counter(label: label, dimensions: dimensions(key), factory: factory))
            })
    }

    /// Counts one proof-of-work verification outcome.
    package func verified(_ result: VerificationResult) { verifications[result]?.increment() }

    /// Counts one request refused by a rate limit.
    package func rejected(_ rateClass: MailboxRateClass) { rejections[rateClass]?.increment() }

    /// Counts one account created, free or by a Pro user.
    package func accountCreated(pro: Bool) { created[pro]?.increment() }
}

extension MailboxRateClass {
    /// The `class` label value of the rate-limit metric.
    var metricName: String {
        switch self {
        case .publicRequests: "public"
        case .freeAuthenticated: "free"
        case .pro: "pro"
        case .freeAccountCreation: "free_account_creation"
        case .proAccountCreation: "pro_account_creation"
        }
    }
}
