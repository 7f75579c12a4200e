import ServerKit

/// The sign-in (or sign-up) form. Field names are part of the documented form contract: `email`, `password`, the
/// hidden `csrf_token` and `next`.
struct OwnerSignInForm {
    var action: String
    var next: String
    var signUpOpen: Bool
    var signingUp = false
    var email = ""
    var error: String?
    var csrfToken = ""

    func render() -> String {
        let e = HTMLText.escape
        let title = signingUp ? "Create your owner account" : "Sign in"
        var other = ""
        if signingUp {
            other = "<p class=\"hint\">Have an account? <a href=\"/owner/sign-in?next=\(e(next))\">Sign in</a>.</p>"
        } else if signUpOpen {
            other = "<p class=\"hint\">No account? <a href=\"/owner/sign-up?next=\(e(next))\">Create one</a>.</p>"
        }
        let main = """
            <section class="card" id="sign-in">
            \(OwnerPageShell.flash(error, kind: "error"))
            <form method="post" action="\(e(action))" id="sign-in-form">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(e(csrfToken))">
            <input type="hidden" name="next" value="\(e(next))">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="email" required value="\(e(email))">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="\(signingUp ? "new-password" : "current-password")" required>
            <button type="submit" id="submit">\(signingUp ? "Create account" : "Sign in")</button>
            </form>
            \(other)
            </section>
            """
        return OwnerPageShell.document(title: title, main: main)
    }
}
