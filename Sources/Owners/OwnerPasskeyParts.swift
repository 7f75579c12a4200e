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
        var rows: HTML = ""
        for passkey in passkeys {
            let used: HTML = passkey.lastUsedAt.map(OwnerInboxesPage.time) ?? "never"
            let kind: HTML =
                passkey.clonedAt != nil
                ? "<strong class=\"cloned\">refused: possibly cloned, remove it</strong>"
                : passkey.backupEligible ? "synced passkey" : "this device only"
            rows += """
                <tr class="passkey" data-passkey-id="\(passkey.id)">
                <td class="passkey-name" data-label="Name">\(passkey.name)</td>
                <td data-label="Added">\(OwnerInboxesPage.time(passkey.createdAt))</td>
                <td class="passkey-used" data-label="Last used">\(used)</td>
                <td class="passkey-kind" data-label="Kind">\(kind)</td>
                <td class="actions"><form method="post" action="/owner/passkeys/\(passkey.id)/rename" class="inline rename-passkey">
                \(hidden)<label class="visually-hidden" for="rename-\(passkey.id)">New name</label>
                <input id="rename-\(passkey.id)" name="name" maxlength="\(PasskeyStore.maximumNameLength)" required value="\(passkey.name)">
                <button type="submit">Rename</button></form>
                <form method="post" action="/owner/passkeys/\(passkey.id)/remove" class="inline remove-passkey">
                \(hidden)<button type="submit">Remove</button></form></td>
                </tr>

                """
        }
        let list: HTML =
            passkeys.isEmpty
            ? "<p class=\"hint\" id=\"no-passkeys\">No passkey yet: you sign in with your email and password.</p>\n"
            : """
            <div class="table-wrap">
            <table id="passkeys">
            <thead><tr><th>Passkey</th><th>Added</th><th>Last used</th><th>Kind</th><th></th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </div>

            """
        let register: HTML =
            ceremonies
            ? """
            <form method="post" action="/owner/passkeys" id="passkey-register" data-passkey="register" data-options="/owner/passkeys/options">
            \(hidden)<input type="hidden" name="credential" value="">
            <label for="passkey-name">Name of the new passkey</label>
            <input id="passkey-name" name="name" maxlength="\(PasskeyStore.maximumNameLength)" required value="Passkey">
            <button type="submit" id="passkey-add" hidden>Add a passkey</button>
            <noscript><p class="hint">Adding a passkey needs JavaScript.</p></noscript>
            </form>
            <script src="\(OwnerPasskeyScript.path)" defer></script>

            """
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
        """
        <form method="post" action="/owner/sign-in/passkey" id="passkey-sign-in" data-passkey="sign-in" data-options="/owner/sign-in/passkey/options">
        <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
        <input type="hidden" name="next" value="\(next)">
        <input type="hidden" name="credential" value="">
        <button type="submit" id="passkey-button" hidden>Sign in with a passkey</button>
        <noscript><p class="hint" id="passkey-needs-js">Signing in with a passkey needs JavaScript; your email and \
        password still work.</p></noscript>
        </form>
        <script src="\(OwnerPasskeyScript.path)" defer></script>
        """
    }
}
