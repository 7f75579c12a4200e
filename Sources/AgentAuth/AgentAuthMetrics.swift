import Metrics

/// The metrics the agent surface records through the swift-metrics facade.
///
/// The handlers are created once, in ``AgentAuthService``'s initialiser, from the factory it is given
/// (by default `MetricsSystem.factory`: then bootstrap the metrics system before creating the service).
struct AgentAuthMetrics: Sendable {
    /// Result label values of `postern_pow_verifications_total`.
    enum VerificationResult: String, CaseIterable, Sendable {
        /// The proof matched.
        case valid
        /// Too few leading zero bits (refused before any scrypt).
        case insufficientBits = "insufficient_bits"
        /// The challenge was already used.
        case replayed
        /// The recomputed scrypt output differed.
        case mismatch
        /// The worker pool was full.
        case overloaded
    }

    /// `postern_agent_challenges_total`: challenges issued.
    let challenges: Counter
    /// `postern_agent_pow_base_difficulty`: the configured base difficulty.
    let baseDifficulty: Gauge
    /// `postern_agent_pow_difficulty`: difficulty of the most recently issued challenge.
    let currentDifficulty: Gauge
    /// `postern_agent_difficulty_raised_total`: challenges issued above the base difficulty.
    let raised: Counter
    /// `postern_pow_verifications_total{surface="agent",result=...}`.
    private let verifications: [VerificationResult: Counter]
    /// `postern_agent_signups_total`: accounts created.
    let signups: Counter
    /// `postern_agent_logins_total`: sessions created by API key.
    let logins: Counter
    /// `postern_agent_capabilities_total`: capability tokens issued.
    let capabilities: Counter
    /// `postern_rate_limit_rejections_total{surface="agent",class=challenge|session|capability}`.
    private let rejections: [AgentAuthService.RateClass: Counter]

    init(baseDifficulty base: Int, factory: any MetricsFactory) {
        challenges = Counter(label: "postern_agent_challenges_total", factory: factory)
        baseDifficulty = Gauge(label: "postern_agent_pow_base_difficulty", factory: factory)
        currentDifficulty = Gauge(label: "postern_agent_pow_difficulty", factory: factory)
        raised = Counter(label: "postern_agent_difficulty_raised_total", factory: factory)
        signups = Counter(label: "postern_agent_signups_total", factory: factory)
        logins = Counter(label: "postern_agent_logins_total", factory: factory)
        capabilities = Counter(label: "postern_agent_capabilities_total", factory: factory)
        var verifications: [VerificationResult: Counter] = [:]
        for result in VerificationResult.allCases {
            verifications[result] = Counter(
                label: "postern_pow_verifications_total",
                dimensions: [("surface", "agent"), ("result", result.rawValue)],
                factory: factory)
        }
        self.verifications = verifications
        let classes: [(AgentAuthService.RateClass, String)] = [
            (.challenge, "challenge"), (.session, "session"), (.capability, "capability"),
        ]
        var rejections: [AgentAuthService.RateClass: Counter] = [:]
        for (rateClass, name) in classes {
            rejections[rateClass] = Counter(
                label: "postern_rate_limit_rejections_total", dimensions: [("surface", "agent"), ("class", name)],
                factory: factory)
        }
        self.rejections = rejections
        baseDifficulty.record(base)
        currentDifficulty.record(base)
    }

    /// Counts one proof-of-work verification outcome.
    func verified(_ result: VerificationResult) {
        verifications[result]?.increment()
    }

    /// Counts one request refused by the rate limit of `rateClass`.
    func rateLimited(_ rateClass: AgentAuthService.RateClass) {
        rejections[rateClass]?.increment()
    }
}
