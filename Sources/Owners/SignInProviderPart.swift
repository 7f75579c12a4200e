import BrowserPages
import ServerKit
import SignInProviders

/// The providers part of a "Sign-in methods" section (issue 54 item 6): each linked provider identity with an unlink
/// button, and a link button per provider not linked yet; `/owner`'s (``OwnerSignInMethodsSection``) and the Pro
/// dashboard's (the web inbox's) are this one part with their own form targets. Every form carries the CSRF token;
/// every interpolated value is escaped.
///
/// Form fields: link `provider` and the ``Targets/linkFields``; unlink `provider`, `issuer`, `subject`; both the hidden
/// `csrf_token`. Ids: `#sign-in-method-list`, `.identity#identity-<provider>`, `#unlink-<provider>`, `#link-<provider>`.
public struct SignInProviderPart {
    /// Where a surface's forms go.
    public struct Targets: Sendable {
        /// The link form's action.
        public var linkAction: String
        /// The link form's other hidden fields (the owners': `surface`, `intent`, `next`).
        public var linkFields: [(name: String, value: String)]
        /// The unlink form's action.
        public var unlinkAction: String

        /// `/owner`'s: `/oidc/start` with `surface=owners`, `intent=link`, `next=/owner`; `/owner/sign-in-methods/unlink`.
        public static let owners = Targets(
            linkAction: "/oidc/start",
            linkFields: [("surface", "owners"), ("intent", "link"), ("next", "/owner")],
            unlinkAction: "/owner/sign-in-methods/unlink")

        /// Memberwise.
        public init(linkAction: String, linkFields: [(name: String, value: String)], unlinkAction: String) {
            self.linkAction = linkAction
            self.linkFields = linkFields
            self.unlinkAction = unlinkAction
        }
    }

    /// The providers that sign into the surface, in configured order.
    public var providers: [SignInProvider]
    /// The account's linked identities.
    public var identities: [SignInIdentity]
    public var csrfToken: String
    public var targets: Targets
    /// How the surface shows a time.
    public var time: (Int64) -> HTML

    /// Memberwise.
    public init(
        providers: [SignInProvider], identities: [SignInIdentity], csrfToken: String, targets: Targets,
        time: @escaping (Int64) -> HTML
    ) {
        self.providers = providers
        self.identities = identities
        self.csrfToken = csrfToken
        self.targets = targets
        self.time = time
    }

    /// The part; empty when no provider signs into the surface and none is linked.
    public func render() -> HTML {
        guard !(providers.isEmpty && identities.isEmpty) else { return .empty }
        var rows: HTML = ""
        for identity in identities {
            let name = providers.first { $0.name == identity.provider }?.displayName ?? identity.provider
            let email: HTML = identity.email.map { " (\($0))" } ?? ""
            rows += """
                <li class="identity" id="identity-\(identity.provider)"><span>\(name)\(email), linked \
                \(time(identity.createdAt))</span>
                <form method="post" action="\(targets.unlinkAction)" class="inline">
                \(hidden())
                <input type="hidden" name="provider" value="\(identity.provider)">
                <input type="hidden" name="issuer" value="\(identity.issuer)">
                <input type="hidden" name="subject" value="\(identity.subject)">
                <button type="submit" class="secondary" id="unlink-\(identity.provider)">Unlink</button>
                </form></li>

                """
        }
        var fields: HTML = ""
        for (name, value) in targets.linkFields {
            fields += "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">\n"
        }
        var links: HTML = ""
        for provider in providers where !identities.contains(where: { $0.provider == provider.name }) {
            links += """
                <form method="post" action="\(targets.linkAction)" class="inline">
                \(hidden())
                <input type="hidden" name="provider" value="\(provider.name)">
                \(fields)<button type="submit" id="link-\(provider.name)">Link \(provider.displayName)</button>
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
        "<input type=\"hidden\" name=\"\(BrowserForms.csrfField)\" value=\"\(csrfToken)\">"
    }
}
