import ServerKit

/// The frame of every owner-facing page (owner pages, sign-in, the authorization server's consent), in the document
/// every page shares (``HTMLPage/document(title:css:header:main:footer:)``): title, the signed-in owner with a
/// sign-out button, the main content, built as ``HTML``.
public enum OwnerPageShell {
    /// A whole document.
    /// - Parameters:
    ///   - title: the page title (plain text).
    ///   - main: the content.
    ///   - owner: the signed-in owner, shown with a sign-out form; nil before sign-in.
    ///   - csrfToken: the CSRF token for the sign-out form (needed when `owner` is set).
    public static func document(title: String, main: HTML, owner: Owner? = nil, csrfToken: String? = nil) -> HTML {
        var account: HTML = ""
        if let owner, let csrfToken {
            account = """
                <form method="post" action="/owner/sign-out" id="sign-out-form" class="account">
                <span id="signed-in-as">\(HTML.address(owner.email))</span>
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <button type="submit" id="sign-out">Sign out</button>
                </form>
                """
        }
        // A signed-in owner reads their inboxes' mail in the web inbox (`a#read-mail`), from every owner page.
        func link(_ path: String, _ text: String, id: String? = nil) -> HTML {
            let current: HTML = text == title ? " aria-current=\"page\"" : ""
            let idAttribute: HTML = id.map { " id=\"\($0)\"" } ?? ""
            return "<a\(idAttribute) href=\"\(path)\"\(current)>\(text)</a>"
        }
        let links: HTML =
            owner == nil
            ? ""
            : "<nav class=\"owner-links\" aria-label=\"Owner\">"
                + [link("/owner", "Your inboxes"), link("/owner/domains", "Your domains"),
                    link("/inbox", "Read mail", id: "read-mail")].joined(separator: " · ") + "</nav>"
        return HTMLPage.document(title: title, css: css, header: account + links + "<h1>\(title)</h1>" as HTML, main: main)
    }

    /// A flash message paragraph (`kind` "notice" or "error"), escaped.
    public static func flash(_ text: String?, kind: String) -> HTML {
        guard let text else { return .empty }
        let role = kind == "error" ? "alert" : "status"
        return "<p class=\"flash \(kind)\" role=\"\(role)\" id=\"\(kind)\">\(text)</p>"
    }

    static let css = """
        .account{float:right;display:flex;gap:.75rem;align-items:center;color:var(--muted)}.account button{margin:0}
        .owner-links a{padding:.1rem .35rem;border-radius:6px}.owner-links a[aria-current]{font-weight:700;
        color:inherit;text-decoration:none;background:var(--line);box-shadow:inset 0 -2px 0 currentColor}
        form.inline{display:inline-block;margin-right:.5rem}.ok{color:var(--ok);font-weight:600}
        .bad{color:var(--bad);font-weight:600}.status{color:var(--muted);font-weight:400;font-size:.9rem}
        input[type=checkbox],input[type=radio]{width:auto;margin:0 .5rem 0 0;vertical-align:middle}
        pre.key{user-select:all;font-size:1rem}time{white-space:nowrap}td form.inline button{margin:0;white-space:nowrap}
        td code{overflow-wrap:anywhere;word-break:break-all}.table-wrap{overflow-x:auto;max-width:100%}
        td.target,td.default-inbox{overflow-wrap:anywhere}td.address{overflow-wrap:break-word}
        td.actions form.inline{margin:.25rem .5rem .25rem 0}
        @media (max-width:40rem){table,tbody,tr,td{display:block;width:100%}thead{display:none}
        tr{border-bottom:1px solid var(--line);padding:.5rem 0}td{border:0;padding:.15rem 0}
        td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}
        td form.inline button{white-space:normal}
        .table-wrap{overflow-x:visible}.account{float:none;flex-wrap:wrap;margin-bottom:.5rem}
        form.inline{margin:0 .5rem .5rem 0}}
        """
}
