import BrowserPages
import ServerKit
import SignInProviders

/// The sign-in (or sign-up) form. Field names are part of the documented form contract: `email`, `password`, the
/// hidden `csrf_token` and `next`.
struct OwnerSignInForm {
    var action: String
    var next: String
    var signUpOpen: Bool
    var signingUp = false
    var email = ""
    var error: String?
    /// Why the form is shown to a signed-in owner: a page asked for a fresh sign-in (``OwnerService/proofPath(next:)``).
    var notice: String?
    var csrfToken = ""
    /// Whether the passkey sign-in is offered (the server has an RP ID).
    var passkeys = false
    /// The sign-in providers with a button (issue 54): each posts `provider`, `surface=owners`, `intent=sign-in` and
    /// `next` to `/oidc/start`.
    var providers: [SignInProvider] = []

    func render() -> HTML {
        let title = signingUp ? "Create your owner account" : "Sign in"
        var other: HTML = ""
        if signingUp {
            other = "<p class=\"hint\">Have an account? <a href=\"/owner/sign-in?next=\(query: next)\">Sign in</a>.</p>"
        } else if signUpOpen {
            other = "<p class=\"hint\">No account? <a href=\"/owner/sign-up?next=\(query: next)\">Create one</a>.</p>"
        }
        let main: HTML = """
            <section class="card" id="sign-in">
            \(HTML.notice(error, .error))\(HTML.notice(notice, .warning))
            <form method="post" action="\(action)" id="sign-in-form">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <input type="hidden" name="next" value="\(next)">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="\(passkeys && !signingUp ? "username webauthn" : "email")" required value="\(email)">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="\(signingUp ? "new-password" : "current-password")" required>
            <button type="submit" id="submit">\(signingUp ? "Create account" : "Sign in")</button>
            </form>
            \(signingUp || !passkeys ? .empty : OwnerPasskeyParts.signIn(csrfToken: csrfToken, next: next))
            \(other)
            </section>
            \(providerButtons())
            """
        return OwnerPageShell.document(title: title, main: main)
    }

    private func providerButtons() -> HTML {
        guard !providers.isEmpty else { return .empty }
        var buttons: HTML = ""
        for provider in providers {
            buttons += """
                <button type="submit" name="provider" value="\(provider.name)" id="provider-\(provider.name)">Sign in with \
                \(provider.displayName)</button>

                """
        }
        return """
            <section class="card" id="sign-in-providers">
            <form method="post" action="/oidc/start" id="provider-form">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <input type="hidden" name="next" value="\(next)">
            <input type="hidden" name="surface" value="owners">
            <input type="hidden" name="intent" value="sign-in">
            \(buttons)</form>
            </section>
            """
    }
}
