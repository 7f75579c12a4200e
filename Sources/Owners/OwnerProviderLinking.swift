import SignInProviders

/// What a provider's verified identity may do on the owners' side (issue 54 item 4), decided from facts read before:
/// identities are keyed on (issuer, subject), never on email, and an email only ever leads to a question (the
/// account's password), never to a session, unless the operator trusts the provider's emails and the account's own
/// email is proven.
///
/// In order:
/// 1. A signed-in owner linking from `/owner`: an unknown identity is linked to them; one linked to them already is
///    nothing new; one linked to another owner is refused (it stays where it is).
/// 2. A known identity signs into its owner.
/// 3. Without an email the provider verified, nothing more: no link, no sign-up (an unverified address proves nothing,
///    and matching it to an account would hand that account to whoever typed it at the provider).
/// 4. An owner already has that email: with `_TRUST_EMAIL` and that owner's email proven (`email_verified_at`), the
///    identity is linked and signs in; otherwise nothing is linked and no session is made: the page asks that
///    owner's password (the pre-hijack rule of Keycloak #53041; Kratos and Keycloak ask the same). An owner without a
///    password is refused: they link from `/owner` after signing in with their own provider.
/// 5. Nobody has it: with `_ALLOW_SIGNUP` and the address's domain in `_ALLOWED_DOMAINS` (when set), a new owner
///    without a password; otherwise refused.
public enum OwnerProviderLinking {
    /// The outcome.
    public enum Decision: Sendable, Equatable {
        /// Sign in as this owner.
        case signIn(ownerID: String)
        /// Link the identity to this signed-in owner.
        case link(ownerID: String)
        /// The identity is linked to this signed-in owner already.
        case alreadyLinked
        /// Link the identity to this owner by the provider's trusted email, then sign in.
        case linkByTrustedEmail(ownerID: String)
        /// Ask this owner's password before linking; no session meanwhile.
        case confirmPassword(ownerID: String, email: String)
        /// Make a new owner without a password with this (normalized, verified) email.
        case signUp(email: String)
        /// Nothing happens.
        case refuse(Refusal)
    }

    /// Why nothing happens.
    public enum Refusal: String, Sendable, Equatable {
        /// The identity is linked to another owner.
        case linkedToAnother = "linked_to_another"
        /// The provider gave no email it verified.
        case emailNotVerified = "email_not_verified"
        /// The owner with that email has no password to prove the link with.
        case accountWithoutPassword = "account_without_password"
        /// Nobody is linked and sign-up is off for this provider.
        case signUpClosed = "signup_closed"
        /// Sign-up is on but the address's domain is not allowed.
        case domainNotAllowed = "domain_not_allowed"
    }

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
        if let linkingFor {
            guard let linkedTo else { return .link(ownerID: linkingFor) }
            return linkedTo == linkingFor ? .alreadyLinked : .refuse(.linkedToAnother)
        }
        if let linkedTo { return .signIn(ownerID: linkedTo) }
        guard let email = verifiedEmail(identity) else { return .refuse(.emailNotVerified) }
        if let candidate {
            if provider.trustEmail, candidate.emailVerified { return .linkByTrustedEmail(ownerID: candidate.owner.id) }
            guard candidate.hasPassword else { return .refuse(.accountWithoutPassword) }
            return .confirmPassword(ownerID: candidate.owner.id, email: candidate.owner.email)
        }
        guard provider.allowSignUp else { return .refuse(.signUpClosed) }
        let domain = email.split(separator: "@").last.map(String.init) ?? ""
        guard provider.allowedDomains.isEmpty || provider.allowedDomains.contains(domain) else {
            return .refuse(.domainNotAllowed)
        }
        return .signUp(email: email)
    }

    /// The identity's email, normalized, when the provider verified it and it is an address; else nil.
    public static func verifiedEmail(_ identity: ProviderIdentity) -> String? {
        guard identity.emailVerified, let email = identity.email else { return nil }
        return OwnerCredentials.normalizedEmail(email)
    }
}
