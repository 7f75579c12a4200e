import BrowserPages
import Passkeys
import ServerKit

/// The passkey parts of the owner pages (issue 56), each whole in itself so that the other sign-in methods sit beside
/// them: the passkeys part of "Sign-in methods" on `/owner` (the owner's passkeys with their name, when made, when last
/// used, whether synced; rename and remove forms each; the form that registers a new one), and the passkey button of
/// `/owner/sign-in`.
///
/// Both forms are run by ``OwnerPasskeyScript`` (`data-passkey`, `data-options`): it fetches the options, asks the
/// browser for the credential, puts its JSON in the hidden `credential` field and submits the form, so the answer is a
/// page as any form's. Without JavaScript the `noscript` says passkeys need it; the other ways to sign in still work.
///
/// Form fields: register `name`, `credential`; rename `name`; sign-in `credential`, `next`; every form `csrf_token`.
enum OwnerPasskeyParts {
    /// The passkeys part of "Sign-in methods" on `/owner` (``OwnerSignInMethodsSection``): `passkeys`, oldest first,
    /// and the register form when `ceremonies` is true.
    static func passkeys(_ passkeys: [PasskeyCredential], ceremonies: Bool, csrfToken: String) -> HTML {
        let hidden: HTML = "<input type=\"hidden\" name=\"\(OwnerBrowser.csrfField)\" value=\"\(csrfToken)\">"
        let list = PasskeyPageParts.list(passkeys, base: "/owner/passkeys", hidden: hidden, time: OwnerInboxesPage.time)
        let register: HTML =
            ceremonies
            ? PasskeyPageParts.register(base: "/owner/passkeys", script: OwnerPasskeyScript.path, hidden: hidden)
            : "<p class=\"hint\">Passkeys need this server on a domain name (its public URL).</p>\n"
        return """
            <h3>Passkeys</h3>
            \(list)\(register)<p class="hint">A passkey signs you in with your device's screen lock, and no look-alike \
            site can use it. A synced passkey is kept by your password manager across your devices.</p>

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
