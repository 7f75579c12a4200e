import DNS
import Directory
import Logging
import OAuthGrants
import Owners
import Passkeys
import PosternApp
import SecondFactors
import SignInProviders
import Storage
import Time

/// The operator commands behind `postern oidc show` and `postern owner show` (issues 54 and 56).
extension Operations {
    /// `postern oidc show`: the one redirect URI to register at every provider, then one block per provider: its kind
    /// and issuer (or GitHub URLs), surfaces and rules, and its discovery state, fetched now through the provider's
    /// address policy.
    /// - Throws: storage errors; `FetchError` when the trusted-roots file cannot be read.
    public static func showSignInProviders(configuration: PosternConfiguration, logger: Logger) async throws
        -> [String]
    {
        let base = linkBaseURL(configuration)
        var lines = ["redirect URI: " + SignInRedirect.uri(publicURL: base)]
        let providers = configuration.signInProviders.providers
        guard !providers.isEmpty else { return lines + ["no providers (POSTERN_OIDC_PROVIDERS is empty)"] }
        let database = try migratedDatabase(configuration, logger: logger)
        guard
            let flow = try Surfaces.signInFlow(
                configuration, identity: PublicIdentity(baseURL: base, issuer: base), database: database,
                resolver: Surfaces.resolver(configuration, threads: DNSResolver.threadPool()), clock: { unixNow() })
        else { return lines }
        for (provider, state) in await flow.discoveryStates() {
            let said: [String?] = [
                "surfaces \(provider.surfaces.map(\.rawValue).sorted().joined(separator: ","))",
                "sign-up \(provider.allowSignUp ? "on" : "off")",
                "trust email \(provider.trustEmail ? "on" : "off")",
                provider.allowedDomains.isEmpty ? nil : "domains \(provider.allowedDomains.joined(separator: ","))",
                provider.allowPrivateNetwork ? "private network allowed" : nil,
            ]
            let rules = said.compactMap { $0 }.joined(separator: ", ")
            lines.append("\(provider.name)  \"\(provider.displayName)\"  client \(provider.clientID)  \(rules)")
            if provider.logout {
                lines.append("  logout: on, post-logout redirect URI " + SignInRedirect.postLogoutURI(publicURL: base))
            }
            switch (provider.kind, state) {
            case (.oidc(let issuer), .success(let metadata)?):
                lines.append("  oidc issuer \(issuer): discovery ok (authorization \(metadata.authorizationEndpoint))")
            case (.oidc(let issuer), .failure(let error)?):
                let words = ProviderDiscoveryCheck.words(error, provider: provider, configuredIssuer: issuer)
                lines.append("  oidc issuer \(issuer): discovery FAILED: \(words)")
            case (.oidc(let issuer), nil):
                lines.append("  oidc issuer \(issuer)")
            case (.github(let web, let api), _):
                lines.append("  github web \(web), api \(api): no discovery (OAuth endpoints under the web URL)")
            }
        }
        return lines
    }

    /// `postern owner show`: the owner with `email` (as `owner list` shows them), whether they have a password and a
    /// proven email, their passkeys, oldest first (``describe(passkey:)``, issue 56), and their linked sign-in
    /// identities (issue 54): every way they sign in; the OpenID apps they allowed (issue 88); last, their two-step
    /// sign-in. Nil when no owner has that email.
    /// - Throws: storage errors.
    public static func showOwner(configuration: PosternConfiguration, email: String, logger: Logger) async throws
        -> [String]?
    {
        let database = try migratedDatabase(configuration, logger: logger)
        guard let candidate = try await ownerStore(database, configuration).linkCandidate(email: email) else { return nil }
        var lines = [
            describe(candidate.owner),
            "  password: " + (candidate.hasPassword ? "set" : "none (signs in with a passkey or a provider)"),
            "  email: " + (candidate.emailVerified ? "proven" : "not proven"),
        ]
        let passkeys = try await PasskeyStore(database: database).credentials(of: .owner(candidate.owner.id))
        lines += passkeys.isEmpty ? ["  no passkeys"] : passkeys.map(describe(passkey:))
        let identities = try await SignInIdentityStore(database: database, clock: { unixNow() })
            .identities(surface: .owners, account: candidate.owner.id)
        lines.append("  sign-in identities: \(identities.count)")
        lines += identities.map(describe(identity:))
        // The OpenID relying parties the owner allowed (issue 88), a legacy client that omits PKCE named as such, and one
        // whose tokens may reach the owner's mail.
        let consents = try await OIDCSignIns(database: database).consents(ownerID: candidate.owner.id)
        lines.append("  OpenID apps allowed: \(consents.count)")
        let parties = OIDCRelyingParties(database: database)
        for consent in consents {
            let party = try await parties.party(id: consent.clientID)
            lines.append(
                "  app \(consent.clientID)  \(party?.name ?? "?")  \(consent.scopes.joined(separator: " "))  allowed "
                    + RFC3339.format(consent.grantedAt) + (party?.legacyNoPKCE == true ? "  legacy-no-pkce" : "")
                    + (party?.mailAccess.map { "  mail-access " + $0.names.joined(separator: ",") } ?? ""))
        }
        let secondFactor = try await OwnerSecondFactors(SecondFactorStore(.owners, database: database, sealing: nil, clock: { unixNow() }))
            .state(ownerID: candidate.owner.id)
        return lines + ["  two-step sign-in: " + describe(secondFactor: secondFactor)]
    }

    /// One linked sign-in identity, indented under its account: provider, issuer, subject, email, when linked and
    /// last used.
    static func describe(identity: SignInIdentity) -> String {
        let used = identity.lastUsedAt.map { "last used \(RFC3339.format($0))" } ?? "never used"
        return "    \(identity.provider)  issuer \(identity.issuer)  subject \(identity.subject)  "
            + "email \(identity.email ?? "-")  linked \(RFC3339.format(identity.createdAt))  \(used)"
    }
}
