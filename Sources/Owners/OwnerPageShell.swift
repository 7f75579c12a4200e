import ServerKit

/// The frame of every owner-facing page (owner pages, sign-in, the authorization server's consent): the one
/// ``PageFrame`` with the signed-in owner, the owner links and the owner pages' style.
public enum OwnerPageShell {
    /// A whole document.
    /// - Parameters:
    ///   - title: the page title (plain text).
    ///   - main: the content.
    ///   - owner: the signed-in owner, shown with a sign-out form; nil before sign-in.
    ///   - csrfToken: the CSRF token for the sign-out form (needed when `owner` is set).
    public static func document(title: String, main: HTML, owner: Owner? = nil, csrfToken: String? = nil) -> HTML {
        var frame = PageFrame(title: title, css: css)
        if let owner, let csrfToken {
            frame.account = PageFrame.Account(
                label: owner.email, signOutAction: "/owner/sign-out", csrfField: OwnerBrowser.csrfField,
                csrfToken: csrfToken)
            // A signed-in owner reads their inboxes' mail in the web inbox (`a#read-mail`), from every owner page.
            frame.navigation = PageFrame.Navigation(
                label: "Owner",
                links: [
                    PageFrame.Link("/owner", "Your inboxes", current: title == "Your inboxes"),
                    PageFrame.Link("/owner/domains", "Your domains", current: title == "Your domains"),
                    PageFrame.Link("/inbox", "Read mail", id: "read-mail", current: title == "Read mail"),
                ])
        }
        return frame.document(main: main)
    }

    /// A flash message paragraph (`kind` "notice" or "error"), escaped.
    public static func flash(_ text: String?, kind: String) -> HTML {
        guard let text else { return .empty }
        let role = kind == "error" ? "alert" : "status"
        return "<p class=\"flash \(kind)\" role=\"\(role)\" id=\"\(kind)\">\(text)</p>"
    }

    static let css = """
        .ok{color:var(--ok);font-weight:600}
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
        .table-wrap{overflow-x:visible}}
        """
}
