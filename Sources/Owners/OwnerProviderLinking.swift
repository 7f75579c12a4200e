import SignInProviders

/// What a provider's verified identity may do on the owners' side (issue 54 item 4): ``ProviderLinking``'s rules, the
/// rules of every surface, over owners (their ids, ``OwnerLinkCandidate``, ``OwnerCredentials/normalizedEmail(_:)``).
public enum OwnerProviderLinking {
    /// The outcome; its accounts are owners' ids.
    public typealias Decision = ProviderLinking.Decision
    /// Why nothing happens.
    public typealias Refusal = ProviderLinking.Refusal

    /// Decides.
    /// - Parameters:
    ///   - identity: who the provider says signed in.
    ///   - provider: its configuration (`_TRUST_EMAIL`, `_ALLOW_SIGNUP`, `_ALLOWED_DOMAINS`).
    ///   - linkingFor: the signed-in owner who began the login to link, from the transaction; nil for a sign-in.
    ///   - linkedTo: the owner the identity is linked to, if any.
    ///   - candidate: the owner holding the identity's verified email, if any (looked up only for a verified email).
    public static func decide(
        identity: ProviderIdentity, provider: SignInProvider, linkingFor: String?, linkedTo: String?,
        candidate: OwnerLinkCandidate?
    ) -> Decision {
        ProviderLinking.decide(
            identity: identity, provider: provider, linkingFor: linkingFor, linkedTo: linkedTo,
            candidate: candidate.map {
                (account: $0.owner.id, email: $0.owner.email, emailVerified: $0.emailVerified, hasPassword: $0.hasPassword)
            }, normalize: OwnerCredentials.normalizedEmail)
    }

    /// The identity's email, normalized as an owner's, when the provider verified it and it is an address; else nil.
    public static func verifiedEmail(_ identity: ProviderIdentity) -> String? {
        ProviderLinking.verifiedEmail(identity, normalize: OwnerCredentials.normalizedEmail)
    }
}
