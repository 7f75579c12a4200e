/// What a provider's verified identity may do on a surface (issue 54 item 4), owners' and Pro users' alike, decided
/// from facts read before: identities are keyed on (issuer, subject), never on email, and an email only ever leads to a
/// question (the account's password), never to a session, unless the operator trusts the provider's emails and the
/// account's own email is proven.
///
/// In order:
/// 1. A signed-in account linking from its settings: an unknown identity is linked to it; one linked to it already is
///    nothing new; one linked to another account is refused (it stays where it is).
/// 2. A known identity signs into its account.
/// 3. Without an email the provider verified, nothing more: no link, no sign-up (an unverified address proves nothing,
///    and matching it to an account would hand that account to whoever typed it at the provider). A verified email
///    whose local part is not ASCII is refused likewise (issue 66): it is compared as every address is
///    (``EmailAddress``: ASCII case only, so `K` written as KELVIN SIGN is never `k`), but no account's email may be
///    claimed, matched or proven through a spelling an operator's eye cannot tell from another.
/// 4. An account already has that email: with `_TRUST_EMAIL` and that account's email proven (`email_verified_at`),
///    the identity is linked and signs in; otherwise nothing is linked and no session is made: the page asks that
///    account's password (the pre-hijack rule of Keycloak #53041; Kratos and Keycloak ask the same). An account without
///    a password is refused: it links from its settings after signing in with its own provider.
/// 5. Nobody has it: with `_ALLOW_SIGNUP` and the address's domain in `_ALLOWED_DOMAINS` (when set), a new account
///    without a password; otherwise refused.
public enum ProviderLinking {
    /// The outcome.
    public enum Decision: Sendable, Equatable {
        /// Sign in as this account.
        case signIn(account: String)
        /// Link the identity to this signed-in account.
        case link(account: String)
        /// The identity is linked to this signed-in account already.
        case alreadyLinked
        /// Link the identity to this account by the provider's trusted email, then sign in.
        case linkByTrustedEmail(account: String)
        /// Ask this account's password before linking; no session meanwhile.
        case confirmPassword(account: String, email: String)
        /// Make a new account without a password with this (normalized, verified) email.
        case signUp(email: String)
        /// Nothing happens.
        case refuse(Refusal)
    }

    /// Why nothing happens.
    public enum Refusal: String, Sendable, Equatable {
        /// The identity is linked to another account.
        case linkedToAnother = "linked_to_another"
        /// The provider gave no email it verified.
        case emailNotVerified = "email_not_verified"
        /// The provider's verified email has a local part that is not ASCII (an RFC 6531 address).
        case emailNotASCII = "email_not_ascii"
        /// The account with that email has no password to prove the link with.
        case accountWithoutPassword = "account_without_password"
        /// Nobody is linked and sign-up is off for this provider.
        case signUpClosed = "signup_closed"
        /// Sign-up is on but the address's domain is not allowed.
        case domainNotAllowed = "domain_not_allowed"
    }

    /// The account holding an identity's verified email, as the surface read it: its id, its email as stored,
    /// whether that email is proven (`email_verified_at`) and whether it has a password.
    public typealias Candidate = (account: String, email: String, emailVerified: Bool, hasPassword: Bool)

    /// Decides.
    /// - Parameters:
    ///   - identity: who the provider says signed in.
    ///   - provider: its configuration (`_TRUST_EMAIL`, `_ALLOW_SIGNUP`, `_ALLOWED_DOMAINS`).
    ///   - linkingFor: the signed-in account that began the login to link, from the transaction; nil for a sign-in.
    ///   - linkedTo: the account the identity is linked to, if any.
    ///   - candidate: the account holding the identity's verified email, if any (looked up only for a verified email).
    ///   - normalize: the surface's rule for its accounts' emails: the stored spelling, nil for no address.
    public static func decide(
        identity: ProviderIdentity, provider: SignInProvider, linkingFor: String?, linkedTo: String?,
        candidate: Candidate?, normalize: (String) -> String?
    ) -> Decision {
        if let linkingFor {
            guard let linkedTo else { return .link(account: linkingFor) }
            return linkedTo == linkingFor ? .alreadyLinked : .refuse(.linkedToAnother)
        }
        if let linkedTo { return .signIn(account: linkedTo) }
        guard identity.emailVerified, let given = identity.email, let email = normalize(given) else {
            return .refuse(.emailNotVerified)
        }
        guard isASCIILocalPart(email) else { return .refuse(.emailNotASCII) }
        if let candidate {
            if provider.trustEmail, candidate.emailVerified { return .linkByTrustedEmail(account: candidate.account) }
            guard candidate.hasPassword else { return .refuse(.accountWithoutPassword) }
            return .confirmPassword(account: candidate.account, email: candidate.email)
        }
        guard provider.allowSignUp else { return .refuse(.signUpClosed) }
        let domain = email.split(separator: "@").last.map(String.init) ?? ""
        guard provider.allowedDomains.isEmpty || provider.allowedDomains.contains(domain) else {
            return .refuse(.domainNotAllowed)
        }
        return .signUp(email: email)
    }

    /// The identity's email by `normalize`, when the provider verified it and it is an address whose local part is
    /// ASCII (rule 3); else nil: nothing is looked up, linked or proven by it.
    public static func verifiedEmail(_ identity: ProviderIdentity, normalize: (String) -> String?) -> String? {
        guard identity.emailVerified, let given = identity.email, let email = normalize(given), isASCIILocalPart(email)
        else { return nil }
        return email
    }

    /// Whether the part of the surface's spelling `email` before its `@` is ASCII (rule 3).
    static func isASCIILocalPart(_ email: String) -> Bool {
        email.unicodeScalars.prefix { $0 != "@" }.allSatisfy(\.isASCII)
    }
}
