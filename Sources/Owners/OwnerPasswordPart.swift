import BrowserPages
import ServerKit

/// The password part of "Sign-in methods" on `/owner` (``OwnerSignInMethodsSection``): whether the owner has a
/// password and, when another way in is left (a passkey that signs in or a linked provider, ``OwnerSignInWays``), the
/// form that removes it (`POST /owner/password/remove`, fields `password` and `csrf_token`).
struct OwnerPasswordPart {
    var hasPassword: Bool
    /// Whether the remove form is shown.
    var removable: Bool
    var csrfToken: String

    func render() -> HTML {
        guard hasPassword else {
            return """
                <h3>Password</h3>
                <p id="password-removed"><span id="method-password">Password: none</span>: you sign in with your \
                passkeys or linked providers. If you lose them, the operator can set a new password for you.</p>

                """
        }
        guard removable else {
            return """
                <h3>Password</h3>
                <p id="method-password">Password: set. You sign in with your email and password.</p>

                """
        }
        return """
            <h3>Password</h3>
            <p id="method-password">Password: set. You also sign in with your email and password.</p>
            <form method="post" action="/owner/password/remove" id="remove-password">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">\
            <label for="current-password">Your password, to remove it</label>
            <input id="current-password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit">Remove my password</button>
            </form>

            """
    }
}
