import ClientAddress
import Foundation
import Logging

/// A setting that runs but is unsafe where the server is reached, named in a warning when it starts
/// (``PosternRuntime/build(configuration:logger:clock:accessLog:services:metrics:)``). ``warnings(for:)`` is pure over
/// the configuration, so each rule is tested without a server.
enum StartupWarning: Sendable, Equatable {
    /// The test profile (no rate limits, no proofs of work, no sandbox mail checks) on a listen address beyond
    /// loopback: anyone who reaches it makes accounts in bulk and guesses passwords without limit.
    case testProfileReachable(host: String)
    /// Open owner sign-up (`POSTERN_OWNER_SIGNUP=open`) with outbound delivery on and `POSTERN_OUTBOUND_SENDERS=owned`:
    /// anyone may become an owner, and only the operator's approval makes one a sender.
    case openSignUpWithOutbound

    /// Every warning `configuration` calls for, in a stable order.
    static func warnings(for configuration: PosternConfiguration) -> [StartupWarning] {
        var warnings: [StartupWarning] = []
        if configuration.profile == .test {
            let hosts = [configuration.listener.host, configuration.smtp.host].compactMap { $0 }
            var seen: Set<String> = []
            for host in hosts where !isLoopback(host) && seen.insert(host).inserted {
                warnings.append(.testProfileReachable(host: host))
            }
        }
        if configuration.owners.signUpOpen, configuration.outboundNeedsOwnerApproval {
            warnings.append(.openSignUpWithOutbound)
        }
        return warnings
    }

    /// Logs each of `configuration`'s warnings on `logger`.
    static func log(_ configuration: PosternConfiguration, logger: Logger) {
        for warning in warnings(for: configuration) {
            logger.warning("\(warning.message)", metadata: warning.metadata)
        }
    }

    /// What the operator reads.
    var message: String {
        switch self {
        case .testProfileReachable:
            return """
                the test profile turns rate limits and proofs of work off, and this server listens beyond loopback: \
                anyone who reaches it may make accounts in bulk and guess passwords without limit; listen on \
                127.0.0.1 (POSTERN_HOST) or drop --profile test
                """
        case .openSignUpWithOutbound:
            return """
                owner sign-up is open and outbound delivery is on with POSTERN_OUTBOUND_SENDERS=owned: anyone who \
                reaches /owner/sign-up becomes an owner and makes inboxes, but a self-registered owner is not \
                accountable, so their inboxes send nothing outside (it stays in the outbox) until you approve them \
                with postern owner approve --email E; approve only people you answer for, as every approved owner's \
                inboxes send DKIM-signed mail from this server's domains (docs/outbound.md)
                """
        }
    }

    /// The setting at fault, as structured metadata.
    var metadata: Logger.Metadata {
        switch self {
        case .testProfileReachable(let host): ["host": "\(host)", "profile": "test"]
        case .openSignUpWithOutbound: ["owner_signup": "open", "outbound_senders": "owned"]
        }
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, their IPv4-mapped form) or `localhost`: a listener
    /// there is reached from this machine only. Anything else, a name included, may be reached from elsewhere.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: ["[", "]"])
        if host.lowercased() == "localhost" { return true }
        return IPAddress(host)?.isLoopback ?? false
    }
}
