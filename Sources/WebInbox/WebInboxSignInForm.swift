import BrowserPages
import ServerKit
import SignInProviders

/// The sign-in page: a Mail.td account (`address`, `password`) and, when the mailbox surface is there, a Pro user
/// (`email` and `password`, or an API `token`). Field names and element ids are part of the page's contract with the
/// browser tests; owners sign in at `/owner/sign-in` and come back.
struct WebInboxSignInForm {
    var proOpen: Bool
    /// Whether a Pro user may sign in with a passkey (``WebInboxPasskeyParts/signIn(csrfToken:)``).
    var passkeys = false
    /// The identity providers that sign Pro users in (issue 54): each button posts `provider` to
    /// ``WebInboxService/providerStartPath`` (`#provider-<name>`).
    var providers: [SignInProvider] = []
    var address = ""
    var email = ""
    var error: String?
    var csrfToken = ""
    /// Whether the Pro dashboard asked for a fresh sign-in (``WebInboxService/proofPath``): a notice says why, and the
    /// Pro form comes back to the dashboard.
    var again = false

    func render() -> HTML {
        let csrf: HTML = "<input type=\"hidden\" name=\"\(BrowserForms.csrfField)\" value=\"\(csrfToken)\">"
        var pro: HTML = ""
        if proOpen {
            pro = """
                <section class="card" id="pro-sign-in">
                <h2>Mail.td Pro</h2>
                <form method="post" action="/inbox/sign-in" id="pro-sign-in-form">
                \(csrf)
                <input type="hidden" name="kind" value="pro">
                \(again ? "<input type=\"hidden\" name=\"next\" value=\"\(WebInboxService.dashboardPath)\">" as HTML : .empty)
                <label for="pro-email">Email</label>
                <input id="pro-email" name="email" type="email" autocomplete="\(passkeys ? "username webauthn" : "email")" value="\(email)">
                <label for="pro-password">Password</label>
                <input id="pro-password" name="password" type="password" autocomplete="current-password">
                <label for="pro-token">Or an API token</label>
                <input id="pro-token" name="token" type="password" placeholder="tm_pro_…">
                <button type="submit" id="pro-submit">Sign in</button>
                </form>
                \(passkeys ? WebInboxPasskeyParts.signIn(csrfToken: csrfToken) : .empty)
                \(providerButtons(csrf))
                </section>
                """
        }
        let notice = again ? "Sign in again to go on: making an app password needs a recent sign-in." : nil
        let main: HTML = """
            \(HTML.notice(error, .error))\(HTML.notice(notice, .warning))
            <div class="split">
            <section class="card" id="account-sign-in">
            <h2>Mailbox</h2>
            <form method="post" action="/inbox/sign-in" id="account-sign-in-form">
            \(csrf)
            <input type="hidden" name="kind" value="account">
            <label for="address">Address</label>
            <input id="address" name="address" type="email" autocomplete="email" required value="\(address)">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit" id="account-submit">Sign in</button>
            </form>
            </section>
            \(pro)
            </div>
            <p class="hint" id="owner-sign-in">Own agent inboxes?
            <a href="/owner/sign-in?next=/inbox">Sign in as an owner</a>.</p>
            """
        return BrowserPage.document(title: "Read your mail", main: main)
    }

    private func providerButtons(_ csrf: HTML) -> HTML {
        guard !providers.isEmpty else { return .empty }
        var buttons: HTML = ""
        for provider in providers {
            buttons += """
                <button type="submit" name="provider" value="\(provider.name)" id="provider-\(provider.name)">Sign in \
                with \(provider.displayName)</button>

                """
        }
        return """
            <form method="post" action="\(WebInboxService.providerStartPath)" id="provider-form">
            \(csrf)
            \(buttons)</form>
            """
    }
}
