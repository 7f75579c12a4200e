import BrowserPages
import ServerKit
import SignInProviders

/// The providers part of "Sign-in methods" on `/owner` (issue 54 item 6, ``OwnerSignInMethodsSection``): each linked
/// provider identity with an unlink button, and a link button per provider not linked yet. The forms post to
/// `/oidc/start` (`intent=link`) and `/owner/sign-in-methods/unlink`; every one carries the CSRF token. Every
/// interpolated value is escaped.
///
/// Form fields: link `provider`, `surface` (`owners`), `intent` (`link`), `next`; unlink `provider`, `issuer`,
/// `subject`; both the hidden `csrf_token`.
struct OwnerProviderPart {
    /// The providers that sign owners in, in configured order.
    var providers: [SignInProvider]
    /// The owner's linked identities.
    var identities: [SignInIdentity]
    var csrfToken: String

    func render() -> HTML {
        var rows: HTML = ""
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
            <h3>Sign-in providers</h3>
            <ul id="sign-in-method-list">
            \(rows)</ul>
            \(links)
            """
    }

    private func hidden() -> HTML {
        "<input type=\"hidden\" name=\"\(OwnerBrowser.csrfField)\" value=\"\(csrfToken)\">"
    }
}
