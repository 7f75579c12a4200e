import JWT
import OAuthServer
import SignInProviders

/// The sign-in providers that sign owners in, as the authorization server reads identity assertions (ID-JAG) with
/// them: a provider's keys as sign-in fetches and keeps them, and the owner an identity is linked to on `/owner`.
struct SignInIdentityIssuers: OAuthIdentityIssuers {
    let flow: SignInFlow
    let identities: SignInIdentityStore

    func keys(issuer: String, refresh: Bool) async -> PublishedKeySet? {
        await flow.publishedKeys(issuer: issuer, refresh: refresh)
    }

    func owner(issuer: String, subject: String) async throws -> String? {
        try await identities.linkedAccount(surface: .owners, issuer: issuer, subject: subject)
    }
}
