import Audit
import SignInProviders

/// Pro users as a sign-in provider's callback needs them (issue 54 items 4 and 5): the port the composition root fills
/// with the Mail.td surface (its tables stay behind it), as ``WebInboxSignIn`` is.
public protocol WebInboxProAccounts: Sendable {
    /// A Pro user's email as stored; nil when the text is not an address.
    func normalizedProEmail(_ email: String) -> String?

    /// The Pro user holding `email` (normalized by the port): their id, stored email, whether it is proven and whether
    /// they have a password; nil when nobody has it.
    func proLinkCandidate(email: String) async throws -> ProviderLinking.Candidate?

    /// ``proLinkCandidate(email:)`` by the user's id.
    func proLinkCandidate(id: String) async throws -> ProviderLinking.Candidate?

    /// A new active Pro user without a password, their (verified) email proven; nil when the email is taken or not an
    /// address.
    func createProUserWithoutPassword(email: String) async throws -> String?

    /// Removes Pro user `id` if they have no password: the undoing of a sign-up whose identity another instance linked
    /// first.
    func removeProUserWithoutPassword(id: String) async throws

    /// Records that Pro user `id`'s email is proven, when it is still `email`.
    func markProUserEmailVerified(id: String, email: String) async throws
}

/// What the web inbox needs to sign Pro users in with identity providers: the flow (its providers whose `_SURFACES`
/// include `pro` get a button on `/inbox/sign-in`), the linked identities, the Pro users' port and the audit trail.
public struct WebInboxProviders: Sendable {
    /// The providers and their logins.
    public let flow: SignInFlow
    /// The linked identities (the `pro` family).
    public let identities: SignInIdentityStore
    /// The Pro users.
    public let accounts: any WebInboxProAccounts
    /// Where links, unlinks, sign-ups, refusals and sign-ins are recorded.
    public let audit: AuditTrail

    /// Memberwise.
    public init(
        flow: SignInFlow, identities: SignInIdentityStore, accounts: any WebInboxProAccounts, audit: AuditTrail
    ) {
        self.flow = flow
        self.identities = identities
        self.accounts = accounts
        self.audit = audit
    }

    /// The providers with a button on `/inbox/sign-in` and in the Pro dashboard, in configured order.
    var buttons: [SignInProvider] { flow.providers(for: .pro) }
}
