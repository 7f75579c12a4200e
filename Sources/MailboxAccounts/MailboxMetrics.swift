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
        var verifications: [VerificationResult: Counter] = [:]
        for result in VerificationResult.allCases {
            verifications[result] = Counter(
                label: "postern_pow_verifications_total",
                dimensions: [("surface", "mailbox"), ("result", result.rawValue)], factory: factory)
        }
        self.verifications = verifications
        var rejections: [MailboxRateClass: Counter] = [:]
        for rateClass in MailboxRateClass.allCases {
            rejections[rateClass] = Counter(
                label: "postern_rate_limit_rejections_total",
                dimensions: [("surface", "mailbox"), ("class", rateClass.metricName)], factory: factory)
        }
        self.rejections = rejections
        created = [
            false: Counter(
                label: "postern_mailbox_accounts_created_total", dimensions: [("plan", "free")], factory: factory),
            true: Counter(
                label: "postern_mailbox_accounts_created_total", dimensions: [("plan", "pro")], factory: factory),
        ]
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
