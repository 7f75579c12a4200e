/// The one frame of every server-rendered page (issue 52): the title, the signed-in account with its sign-out form,
/// the navigation, then the page's own content, in ``HTMLPage/document(title:css:header:main:footer:)``. The owner
/// pages, the consent page and the web inbox differ only in the values they give it.
///
/// Ids (the browser tests find them): `#sign-out-form` (class `account`), `#signed-in-as`, `#sign-out`.
public struct PageFrame: Sendable {
    /// Who is signed in, and where their sign-out form posts.
    public struct Account: Sendable {
        /// Shown as an address (line breaks at its `@` and dots).
        public var label: String
        public var signOutAction: String
        public var csrfField: String
        public var csrfToken: String

        public init(label: String, signOutAction: String, csrfField: String, csrfToken: String) {
            self.label = label
            self.signOutAction = signOutAction
            self.csrfField = csrfField
            self.csrfToken = csrfToken
        }
    }

    /// One link of the navigation; `current` marks it `aria-current="page"`.
    public struct Link: Sendable {
        public var path: String
        public var text: String
        public var id: String?
        public var current: Bool

        public init(_ path: String, _ text: String, id: String? = nil, current: Bool = false) {
            self.path = path
            self.text = text
            self.id = id
            self.current = current
        }
    }

    /// A `nav` of links separated by ` · `, of class ``navigationClass``, with its `aria-label`.
    public struct Navigation: Sendable {
        public var label: String
        public var links: [Link]

        public init(label: String, links: [Link]) {
            self.label = label
            self.links = links
        }
    }

    public var title: String
    /// The heading; nil for `<h1>` of the title.
    public var heading: HTML?
    public var account: Account?
    public var navigation: Navigation?
    /// The page's own style rules, after the shared ones (and the account's, when one is signed in).
    public var css: String
    /// Whether `main` draws a `nav` of class ``navigationClass`` of its own (a mailbox's folders), so that the
    /// navigation's style is sent without a ``navigation``.
    public var mainHasNavigation = false
    public var footer: HTML

    public init(
        title: String, heading: HTML? = nil, account: Account? = nil, navigation: Navigation? = nil, css: String = "",
        footer: HTML = "Postern"
    ) {
        self.title = title
        self.heading = heading
        self.account = account
        self.navigation = navigation
        self.css = css
        self.footer = footer
    }

    /// The whole document around `main`.
    public func document(main: HTML) -> HTML {
        var header: HTML = ""
        if let account {
            header += """
                <form method="post" action="\(account.signOutAction)" id="sign-out-form" class="account">
                <span id="signed-in-as">\(HTML.address(account.label))</span>
                <input type="hidden" name="\(account.csrfField)" value="\(account.csrfToken)">
                <button type="submit" id="sign-out" class="secondary">Sign out</button>
                </form>
                """
        }
        if let navigation {
            let links = navigation.links.map { link -> HTML in
                let id: HTML? = link.id.map { " id=\"\($0)\"" }
                let current: HTML = link.current ? " aria-current=\"page\"" : ""
                return "<a\(id) href=\"\(link.path)\"\(current)>\(link.text)</a>"
            }
            header += """
                <nav class="\(Self.navigationClass)" aria-label="\(navigation.label)">\
                \(links.joined(separator: " · "))</nav>
                """
        }
        // A current link that names the page already says what the heading would (issue 83 item 11: the active tab
        // repeated the heading): the heading stays, for screen readers and the outline, out of sight.
        let named = navigation?.links.contains { $0.current && $0.text == title } ?? false
        let hidden: HTML = named ? " class=\"\(Self.namedByNavigationClass)\"" : ""
        header += heading ?? "<h1\(hidden)>\(title)</h1>"
        let shared =
            (navigation == nil && !mainHasNavigation ? "" : Self.navigationCSS) + (account == nil ? "" : Self.accountCSS)
        return HTMLPage.document(title: title, css: shared + css, header: header, main: main, footer: footer)
    }

    /// The class of every `nav` of page links, the frame's and a page's own (``mainHasNavigation``).
    public static let navigationClass = "page-links"

    /// The class of a heading the navigation's current link already shows: kept for assistive technology, not drawn.
    public static let namedByNavigationClass = "named-by-navigation"

    /// The style of a `nav` of page links, sent when the page has one: the current link (`aria-current`) stands apart.
    public static let navigationCSS = """
        .page-links a{padding:.1rem .35rem;border-radius:6px}.page-links a[aria-current]{font-weight:700;color:inherit;
        text-decoration:none;background:var(--line);box-shadow:inset 0 -2px 0 currentColor}
        .named-by-navigation{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;
        clip:rect(0 0 0 0);white-space:nowrap;border:0}
        """

    /// The account form's style, and the inline forms signed-in pages share.
    public static let accountCSS = """
        .account{float:right;display:flex;gap:.75rem;align-items:center;color:var(--muted)}.account button{margin:0}
        form.inline{display:inline-block;margin-right:.5rem}
        @media (max-width:40rem){.account{float:none;flex-wrap:wrap;margin-bottom:.5rem}form.inline{margin:0 .5rem .5rem 0}}
        """
}
