import BrowserPages
import ServerKit
import SignInProviders

/// The "Sign-in methods" section of `/owner` (issue 54 item 6), a page part of its own: the password (whether the
/// owner has one), each linked provider identity with an unlink button, and a link button per provider not linked yet.
/// The forms post to `/oidc/start` (`intent=link`) and `/owner/sign-in-methods/unlink`; every one carries the CSRF
/// token. Every interpolated value is escaped.
///
/// Form fields: link `provider`, `surface` (`owners`), `intent` (`link`), `next`; unlink `provider`, `issuer`,
/// `subject`; both the hidden `csrf_token`.
struct OwnerSignInMethodsSection {
    /// The providers that sign owners in, in configured order.
    var providers: [SignInProvider]
    /// The owner's linked identities.
    var identities: [SignInIdentity]
    /// Whether the owner has a password.
    var hasPassword: Bool
    var csrfToken: String

    func render() -> HTML {
        var rows: HTML = ""
        rows += """
            <li id="method-password">Password: \(hasPassword ? "set" : "none (this account signs in with a provider)")</li>

            """
        for identity in identities {
            let name = providers.first { $0.name == identity.provider }?.displayName ?? identity.provider
            let email: HTML = identity.email.map { " (\($0))" } ?? ""
            rows += """
                <li class="identity" id="identity-\(identity.provider)"><span>\(name)\(email), linked \
                \(OwnerInboxesPage.time(identity.createdAt))</span>
                <form method="post" action="/owner/sign-in-methods/unlink" class="inline">
                \(hidden())
                <input type="hidden" name="provider" value="\(identity.provider)">
                <input type="hidden" name="issuer" value="\(identity.issuer)">
                <input type="hidden" name="subject" value="\(identity.subject)">
                <button type="submit" class="secondary" id="unlink-\(identity.provider)">Unlink</button>
                </form></li>

                """
        }
        var links: HTML = ""
        for provider in providers where !identities.contains(where: { $0.provider == provider.name }) {
            links += """
                <form method="post" action="/oidc/start" class="inline">
                \(hidden())
                <input type="hidden" name="provider" value="\(provider.name)">
                <input type="hidden" name="surface" value="owners">
                <input type="hidden" name="intent" value="link">
                <input type="hidden" name="next" value="/owner">
                <button type="submit" id="link-\(provider.name)">Link \(provider.displayName)</button>
                </form>

                """
        }
        return """
            <section class="card" id="sign-in-methods"><h2>Sign-in methods</h2>
            <ul id="sign-in-method-list">
            \(rows)</ul>
            \(links)</section>

            """
    }

    private func hidden() -> HTML {
        "<input type=\"hidden\" name=\"\(OwnerBrowser.csrfField)\" value=\"\(csrfToken)\">"
    }
}

/// The one-time notices of the "Sign-in methods" section, carried by the ``OwnerBrowser/flashCookie`` as a fixed code.
enum OwnerSignInMethodsFlash: String, Equatable {
    case linked = "signin.linked"
    case alreadyLinked = "signin.already_linked"
    case linkedToAnother = "signin.linked_to_another"
    case unlinked = "signin.unlinked"
    case lastMethod = "signin.last_method"

    /// What `/owner` says.
    var words: String {
        switch self {
        case .linked: "Sign-in provider linked: you can sign in with it now."
        case .alreadyLinked: "That sign-in was linked to your account already."
        case .linkedToAnother: "That sign-in is linked to another account, and stays so: nothing changed."
        case .unlinked: "Sign-in provider unlinked: it no longer signs you in."
        case .lastMethod:
            "That is your only way to sign in: link another provider (or ask the operator for a password) first."
        }
    }
}

/// What `/owner` needs to show the "Sign-in methods" section: the providers, the owner's identities and whether the
/// owner has a password.
public struct OwnerSignInMethods: Sendable {
    let flow: SignInFlow
    let identities: SignInIdentityStore
    let owners: OwnerStore

    /// - Parameters:
    ///   - flow: the providers and their logins.
    ///   - identities: the linked identities.
    ///   - owners: the owners (whether one has a password).
    public init(flow: SignInFlow, identities: SignInIdentityStore, owners: OwnerStore) {
        self.flow = flow
        self.identities = identities
        self.owners = owners
    }

    /// The section for `owner`.
    /// - Throws: storage errors.
    func section(owner: Owner, csrfToken: String) async throws -> HTML {
        let linked = try await identities.identities(surface: .owners, account: owner.id)
        let hasPassword = try await owners.linkCandidate(id: owner.id)?.hasPassword ?? false
        return OwnerSignInMethodsSection(
            providers: flow.providers(for: .owners), identities: linked, hasPassword: hasPassword, csrfToken: csrfToken
        ).render()
    }
}
