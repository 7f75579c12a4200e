import JWT

/// The sign-in providers the operator trusts, as the JWT bearer grant and token exchange read identity assertions
/// (ID-JAG) with them: a port the composition root fills from the configured OpenID Connect providers (their keys
/// fetched and kept as sign-in keeps them, their linked identities), so that this target knows no provider.
public protocol OAuthIdentityIssuers: Sendable {
    /// The published keys of the trusted provider whose issuer is exactly `issuer`; nil when no provider the operator
    /// configured has that issuer, or its keys cannot be fetched.
    /// - Parameter refresh: fetch them again (a `kid` the keys kept do not hold), as rate-limited as a sign-in's.
    func keys(issuer: String, refresh: Bool) async -> PublishedKeySet?

    /// The owner who signs in with the identity (`issuer`, `subject`); nil when none does.
    /// - Throws: storage errors.
    func owner(issuer: String, subject: String) async throws -> String?
}
