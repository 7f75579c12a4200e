/// Several kinds of inbox credential at one route: each authenticator is asked in order and the first principal found
/// is the answer (JMAP: an agent's capability token, then a Mail.td account's mailbox token). The kinds must not
/// overlap: each refuses, with nil, every bearer that is not its own.
public struct PrincipalAuthenticatorChain: PrincipalAuthenticator {
    let authenticators: [any PrincipalAuthenticator]

    /// - Parameter authenticators: who is asked, in order.
    public init(_ authenticators: [any PrincipalAuthenticator]) {
        self.authenticators = authenticators
    }

    /// The first principal one of the authenticators finds; nil when none does.
    /// - Throws: the first storage error an authenticator throws (the later ones are not asked).
    public func principal(for credentials: Credentials) async throws -> Principal? {
        for authenticator in authenticators {
            if let principal = try await authenticator.principal(for: credentials) { return principal }
        }
        return nil
    }
}
