import HTTP1
import ServerKit

/// The frame and style every signed-in family of browser pages shares (the owner pages, the authorization server's
/// consent, the web inbox's sign-in and error pages): the one ``PageFrame`` in their style, and their flash messages.
/// A family adds its own account and navigation to ``frame(title:)`` (`OwnerPageShell` does for owners).
public enum BrowserPage {
    /// The frame of a page titled `title` in the browser pages' style, with no account and no navigation yet.
    /// - Parameter title: the page title (plain text).
    public static func frame(title: String) -> PageFrame {
        PageFrame(title: title, css: css)
    }

    /// A whole document for someone not signed in (a sign-in form, an error page).
    /// - Parameters:
    ///   - title: the page title (plain text).
    ///   - main: the content.
    public static func document(title: String, main: HTML) -> HTML {
        frame(title: title).document(main: main)
    }

    /// A whole page that says one thing (an error, a refusal) to someone not signed in, with `status`.
    /// - Parameters:
    ///   - title: the page title (plain text).
    ///   - message: the one paragraph (plain text).
    public static func message(_ status: HTTPStatus, _ title: String, _ message: String) -> HTTPResponse {
        HTMLPage.response(status, document(title: title, main: HTML.notice(message, .error)))
    }

    /// A page that moves the browser on to `url` by itself (a meta refresh, and a link for a browser that follows
    /// none), answered 200 where a redirect would not do:
    /// - a form's answer that leaves for another site (a sign-in provider's authorization or end-session page): the
    ///   pages' CSP `form-action 'self'` holds the redirects that follow a form's submission too, so a browser refuses
    ///   a 303 to another origin, where a navigation the answer's own page starts is not a form's;
    /// - the end of a provider's cross-site redirect that must carry a `SameSite=Strict` session cookie: the next
    ///   request is a same-site navigation, where a 303 would still be part of the cross-site one.
    /// - Parameters:
    ///   - url: where to go (escaped like every interpolated value).
    ///   - title: the page title (plain text).
    ///   - setCookies: `Set-Cookie` values of the answer.
    public static func moveOn(to url: String, title: String, setCookies: [String]) -> HTTPResponse {
        let main: HTML = """
            <meta http-equiv="refresh" content="0; url=\(url)">
            <p id="continue"><a href="\(url)">Continue</a></p>
            """
        return HTMLPage.response(.ok, document(title: title, main: main), setCookies: setCookies)
    }

    /// The "Sign-in methods" section (`#sign-in-methods`) of an account's own page, `/owner`'s and the Pro dashboard's
    /// alike: its parts (the password's, the passkeys', the providers') one after another.
    public static func signInMethods(_ parts: [HTML]) -> HTML {
        var content: HTML = ""
        for part in parts { content += part }
        return """
            <section class="card" id="sign-in-methods"><h2>Sign-in methods</h2>
            \(content)</section>

            """
    }

    /// The page of a sign-in with a provider that came to nothing, every surface's: `message` (one fixed sentence,
    /// ``SignInProviders/SignInMessage``'s) and the way back to the surface's sign-in page (`#back-to-sign-in`).
    /// - Parameters:
    ///   - status: the answer's status.
    ///   - title: the page title (plain text).
    ///   - message: what to say (plain text).
    ///   - backTo: the surface's sign-in page.
    ///   - setCookies: `Set-Cookie` values of the answer (the login's pre-session cookie dropped).
    public static func signInRefused(
        _ status: HTTPStatus, title: String, _ message: String, backTo: String, setCookies: [String]
    ) -> HTTPResponse {
        let main: HTML = """
            \(HTML.notice(message, .error))
            <p><a href="\(backTo)" id="back-to-sign-in">Back to sign-in</a></p>
            """
        return HTMLPage.response(status, document(title: title, main: main), setCookies: setCookies)
    }

    static let css = """
        .ok{color:var(--ok);font-weight:600}
        .bad{color:var(--bad);font-weight:600}.status{color:var(--muted);font-weight:400;font-size:.9rem}
        input[type=checkbox],input[type=radio]{width:auto;margin:0 .5rem 0 0;vertical-align:middle}
        pre.key{user-select:all;font-size:1rem}time{white-space:nowrap}td form.inline button{margin:0;white-space:nowrap}
        td code{overflow-wrap:anywhere;word-break:break-all}td code.account-id{white-space:nowrap;word-break:normal}
        td.actions{white-space:nowrap}.table-wrap{overflow-x:auto;max-width:100%}
        td.default-inbox{overflow-wrap:anywhere}td.target{overflow-wrap:break-word}.whole{white-space:nowrap}
        td.actions form.inline button{padding:.45rem .8rem}td.address{overflow-wrap:break-word}
        td.actions form.inline{margin:.25rem .5rem .25rem 0}
        @media (max-width:40rem){table,tbody,tr,td{display:block;width:100%}thead{display:none}
        tr{border-bottom:1px solid var(--line);padding:.5rem 0}td{border:0;padding:.15rem 0}
        td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}
        td form.inline button{white-space:normal}td.actions{white-space:normal}
        .table-wrap{overflow-x:visible}}
        """
}
