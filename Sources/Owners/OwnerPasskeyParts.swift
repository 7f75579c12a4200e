import BrowserPages
import Passkeys
import ServerKit

/// The passkey parts of the owner pages (issue 56), each whole in itself so that other sign-in methods sit beside
/// them: "Sign-in methods" on `/owner` (the owner's passkeys with their name, when made, when last used, whether synced;
/// rename and remove forms each; the form that registers a new one), and the passkey button of `/owner/sign-in`.
///
/// Both forms are run by ``OwnerPasskeyScript`` (`data-passkey`, `data-options`): it fetches the options, asks the
/// browser for the credential, puts its JSON in the hidden `credential` field and submits the form, so the answer is a
/// page as any form's. Without JavaScript the `noscript` says passkeys need it; the other ways to sign in still work.
///
/// Form fields: register `name`, `credential`; rename `name`; sign-in `credential`, `next`; every form `csrf_token`.
enum OwnerPasskeyParts {
    /// "Sign-in methods" for `/owner`: `passkeys`, oldest first, and the register form when `ceremonies` is true; the
    /// password, with a form to remove it when a passkey signs in (`hasPassword`), or the words that it was removed.
    static func signInMethods(
        passkeys: [PasskeyCredential], ceremonies: Bool, hasPassword: Bool, csrfToken: String
    ) -> HTML {
        let hidden: HTML = "<input type=\"hidden\" name=\"\(OwnerBrowser.csrfField)\" value=\"\(csrfToken)\">"
        let list = PasskeyPageParts.list(passkeys, base: "/owner/passkeys", hidden: hidden, time: OwnerInboxesPage.time)
        let register: HTML =
            ceremonies
            ? PasskeyPageParts.register(base: "/owner/passkeys", script: OwnerPasskeyScript.path, hidden: hidden)
            : "<p class=\"hint\">Passkeys need this server on a domain name (its public URL).</p>\n"
        let password: HTML
        if !hasPassword {
            password = """
                <p id="password-removed">You removed your password: you sign in with your passkeys only. If you lose \
                them, the operator can set a new password for you.</p>

                """
        } else if passkeys.contains(where: { $0.clonedAt == nil }) {
            password = """
                <p>You also sign in with your email and password.</p>
                <form method="post" action="/owner/password/remove" id="remove-password">
                \(hidden)<label for="current-password">Your password, to remove it</label>
                <input id="current-password" name="password" type="password" autocomplete="current-password" required>
                <button type="submit">Remove my password</button>
                </form>

                """
        } else {
            password = "<p>You sign in with your email and password.</p>\n"
        }
        return """
            <section class="card" id="sign-in-methods"><h2>Sign-in methods</h2>
            <h3>Password</h3>
            \(password)<h3>Passkeys</h3>
            \(list)\(register)<p class="hint">A passkey signs you in with your device's screen lock, and no look-alike \
            site can use it. A synced passkey is kept by your password manager across your devices.</p>
            </section>

            """
    }

    /// The passkey button of `/owner/sign-in`, coming back to `next`.
    static func signIn(csrfToken: String, next: String) -> HTML {
        PasskeyPageParts.signIn(
            action: "/owner/sign-in/passkey", script: OwnerPasskeyScript.path,
            hidden: """
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <input type="hidden" name="next" value="\(next)">

                """)
    }
}
