import BrowserPages
import Passkeys
import ServerKit

/// The passkey parts of the web inbox's pages (issue 56): "Sign-in methods" in the Pro dashboard (the user's passkeys
/// with their name, when made, when last used, whether synced; rename and remove forms each; the form that registers a
/// new one), and the Pro passkey button of `/inbox/sign-in`.
///
/// The forms are run by the owner pages' script (``WebInboxPasskeys/script``: `data-passkey`, `data-options`): it
/// fetches the options, asks the browser for the credential, puts its JSON in the hidden `credential` field and
/// submits the form. Without JavaScript the `noscript` says passkeys need it; the password still works.
///
/// Form fields: register `name`, `credential`; rename `name`; sign-in `credential`; every form `csrf_token`.
enum WebInboxPasskeyParts {
    /// "Sign-in methods" (`#sign-in-methods`): the password's part (``SignInPasswordPart``: `#password-state`, and
    /// `#remove-password` when `removable`), `passkeys` when the server keeps them (`#passkeys`, `.passkey` rows,
    /// `#passkey-register`) and the linked providers' part (``SignInProviderPart``, empty without providers).
    static func signInMethods(
        hasPassword: Bool, removable: Bool, passkeys: [PasskeyCredential]?, providers: HTML, csrfToken: String
    ) -> HTML {
        let hidden: HTML = "<input type=\"hidden\" name=\"\(BrowserForms.csrfField)\" value=\"\(csrfToken)\">"
        var passkeyPart: HTML = .empty
        if let passkeys {
            let list = PasskeyPageParts.list(passkeys, base: "/inbox/passkeys", hidden: hidden, time: WebInboxPage.time)
            let register = PasskeyPageParts.register(
                base: "/inbox/passkeys", script: WebInboxPasskeys.script.path, hidden: hidden)
            passkeyPart = """
                \(list)\(register)<p class="hint">A passkey signs you in with your device's screen lock, and no \
                look-alike site can use it. A synced passkey is kept by your password manager across your devices.</p>

                """
        }
        let password = SignInPasswordPart(
            hasPassword: hasPassword, removable: removable, action: "/inbox/password/remove", csrfToken: csrfToken,
            withoutPassword:
                "you sign in another way below; POST /api/user/login does not work for you: make an API token below "
                + "instead. If you lose your passkeys, the operator can set a new password for you.")
        return BrowserPage.signInMethods([password.render(), passkeyPart, providers])
    }

    /// The Pro passkey button of `/inbox/sign-in` (`#passkey-sign-in`).
    static func signIn(csrfToken: String) -> HTML {
        PasskeyPageParts.signIn(
            action: "/inbox/sign-in/passkey", script: WebInboxPasskeys.script.path,
            hidden: "<input type=\"hidden\" name=\"\(BrowserForms.csrfField)\" value=\"\(csrfToken)\">\n")
    }
}
