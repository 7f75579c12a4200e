import SMTPClient

/// What a domain's MTA-STS policy (RFC 8461 §4, §5) makes of its MX hosts: which may be tried, and whether the
/// session must use TLS with a certificate that verifies for the host's name. Pure: the policy and the hosts in, the
/// plan out.
public struct MTASTSDecision: Sendable, Equatable {
    /// The hosts that may receive the mail, in MX order.
    public let hosts: [String]
    /// TLS is required and the certificate must verify for the host (`enforce`).
    public let requireVerifiedTLS: Bool
    /// Hosts a `testing` policy would have refused: reported (logged), not enforced.
    public let reportedHosts: [String]

    /// The plan for `hosts` under `policy` (nil: no policy, every host, opportunistic TLS).
    ///
    /// `enforce`: only hosts matching the policy's `mx` patterns, each over verified TLS; none may be left, and then
    /// nothing is sent (``hosts`` empty). `testing`: every host, TLS as configured, the non-matching ones reported.
    public init(policy: MTASTSPolicy?, hosts: [String]) {
        guard let policy, policy.mode != .none else {
            self.hosts = hosts
            requireVerifiedTLS = false
            reportedHosts = []
            return
        }
        let refused = hosts.filter { !policy.matches(mxHost: $0) }
        switch policy.mode {
        case .enforce:
            self.hosts = hosts.filter { policy.matches(mxHost: $0) }
            requireVerifiedTLS = true
            reportedHosts = []
        case .testing, .none:
            self.hosts = hosts
            requireVerifiedTLS = false
            reportedHosts = refused
        }
    }
}
