import BrowserPages
import EmbeddedResources

/// The passkey forms' script (`Sources/EmbeddedResources/passkeys.js`, compiled into the binary), served at ``path``
/// under `script-src 'self'` (no framework, no CDN, no inline script): for each form with `data-passkey`
/// (``OwnerPasskeyParts``) it shows the button, and on submit posts the form's CSRF token to `data-options`, runs
/// `navigator.credentials.create` (`register`) or `.get` (`sign-in`) with the options, writes the credential's JSON into
/// the hidden `credential` field and submits. On the sign-in page it also offers the passkeys in the email field's
/// autofill where the browser has conditional mediation.
enum OwnerPasskeyScript {
    /// Where the pages load it from.
    static let path = "/owner/assets/passkeys.js"

    /// The script as served (``PageScript``).
    static let script = PageScript(path: path, bytes: EmbeddedResources.passkeysScript.bytes)
}
