import Metrics

/// The metrics the agent surface records through the swift-metrics facade.
///
/// The handlers are created once, in ``AgentAuthService``'s initialiser: bootstrap the metrics system
/// before creating the service.
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
    let challenges = Counter(label: "postern_agent_challenges_total")
    /// `postern_agent_pow_base_difficulty`: the configured base difficulty.
    let baseDifficulty = Gauge(label: "postern_agent_pow_base_difficulty")
    /// `postern_agent_pow_difficulty`: difficulty of the most recently issued challenge.
    let currentDifficulty = Gauge(label: "postern_agent_pow_difficulty")
    /// `postern_agent_difficulty_raised_total`: challenges issued above the base difficulty.
    let raised = Counter(label: "postern_agent_difficulty_raised_total")
    /// `postern_pow_verifications_total{surface="agent",result=...}`.
    private let verifications: [VerificationResult: Counter]
    /// `postern_agent_signups_total`: accounts created.
    let signups = Counter(label: "postern_agent_signups_total")
    /// `postern_agent_logins_total`: sessions created by API key.
    let logins = Counter(label: "postern_agent_logins_total")
    /// `postern_agent_capabilities_total`: capability tokens issued.
    let capabilities = Counter(label: "postern_agent_capabilities_total")

    init(baseDifficulty base: Int) {
        var verifications: [VerificationResult: Counter] = [:]
        for result in VerificationResult.allCases {
            verifications[result] = Counter(
                label: "postern_pow_verifications_total", dimensions: [("surface", "agent"), ("result", result.rawValue)])
        }
        self.verifications = verifications
        baseDifficulty.record(base)
        currentDifficulty.record(base)
    }

    /// Counts one proof-of-work verification outcome.
    func verified(_ result: VerificationResult) {
        verifications[result]?.increment()
    }
}
