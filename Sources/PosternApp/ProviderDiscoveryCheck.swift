import Logging
import SignInProviders

/// Each OpenID Connect provider's discovery, tried once when the server starts, so that a provider misconfigured by
/// one character (an issuer with a trailing slash) shows in the log at once instead of as "cannot be reached" on the
/// page (issue 68); and the same words for `postern oidc show`. Discovery itself (fetching, keeping) is
/// ``SignInFlow``'s.
package enum ProviderDiscoveryCheck {
    /// What is wrong with a provider's discovery, in words for the operator: for an issuer mismatch both issuers, the
    /// configured one and the one the provider's document states, and the key to change.
    package static func words(_ error: ProviderError, provider: SignInProvider, configuredIssuer: String) -> String {
        switch error {
        case .discovery(let refused) where refused.code == .issuerMismatch:
            let stated = refused.found.map { "states issuer \($0.debugDescription)" } ?? "states no issuer"
            return "the provider's discovery document \(stated), but POSTERN_OIDC_\(provider.name.uppercased())_ISSUER "
                + "is \(configuredIssuer.debugDescription): they must be equal, byte for byte"
        case .discovery(let refused):
            return "the provider's discovery document was refused (\(refused))"
        case .unreachable(let failure):
            return "the provider cannot be reached (\(failure))"
        case .status(let status, let document):
            return "the provider's \(document) answered HTTP \(status)"
        case .keys(let failure), .token(let failure):
            return "\(failure)"
        }
    }

    /// One line per OpenID Connect provider whose discovery fails now: its name and ``words(_:provider:configuredIssuer:)``.
    static func problems(_ flow: SignInFlow) async -> [(provider: SignInProvider, words: String)] {
        await flow.discoveryStates().compactMap { provider, state in
            guard case .oidc(let issuer) = provider.kind, case .failure(let error)? = state else { return nil }
            return (provider, words(error, provider: provider, configuredIssuer: issuer))
        }
    }

    /// Logs a warning for each provider whose discovery fails (``problems(_:)``).
    static func warn(_ flow: SignInFlow, logger: Logger) async {
        for (provider, words) in await problems(flow) {
            logger.warning(
                "sign-in provider \(provider.name) cannot be used: \(words)",
                metadata: ["provider": "\(provider.name)"])
        }
    }
}
