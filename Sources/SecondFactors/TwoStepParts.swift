import BrowserPages
import QRCode
import ServerKit
import TOTP

/// The parts every family's second-factor pages share (issue 88 item 3; owners' `/owner/two-step`, Pro users'
/// `/inbox/two-step`): where the factor stands with the forms that change it, setting up TOTP (the secret, its
/// `otpauth://` URI and the form for a first code), a form asking for a code, and recovery codes shown once. Every
/// value interpolated is escaped; the secret and the codes appear only in `no-store` pages.
///
/// Form fields: `code` (six digits or a recovery code) and the hidden `csrf_token`.
public enum TwoStepParts {
    /// A code refused at a second step or a setup (wrong, or replayed: one answer for both).
    public static let wrongCode =
        "That code did not work. Type the code your app shows now, or an unused recovery code."
    /// The second step of someone the policy requires a factor of and who has none.
    public static let setUpRequired =
        "This server asks for a second step at sign-in: set up an authenticator app to continue."
    /// A change of the factor refused: the session's sign-in is not recent.
    public static let proofNeeded =
        "Changing two-step sign-in needs a recent sign-in: sign out, sign in again, then change it."
    /// A second step whose factor changed meanwhile (turned on elsewhere while a setup waited).
    public static let startOver = "Your two-step sign-in changed meanwhile. Please sign in again."
    /// The pages' title.
    public static let title = "Two-step sign-in"

    /// The card of `state` with the forms that change it, posted under `path` (`/setup`, `/recovery-codes`,
    /// `/disable`). Ids: `#two-step` (`data-state` `on` or `off`), `#recovery-codes-left`, `#setup`, `#renew-codes`,
    /// `#disable`.
    public static func state(_ state: SecondFactorStore.State, path: String, csrfToken token: String) -> HTML {
        switch state {
        case .on(let left):
            return """
                <section class="card" id="two-step" data-state="on">
                <h2>Two-step sign-in is on</h2>
                <p>After your password you type a code from your authenticator app. Passkeys sign you in alone.</p>
                <p id="recovery-codes-left">\(String(left)) unused recovery code\(left == 1 ? "" : "s") left.</p>
                <form method="post" action="\(path)/recovery-codes" id="renew-codes-form">
                <input type="hidden" name="\(BrowserForms.csrfField)" value="\(token)">
                <button type="submit" id="renew-codes">Make new recovery codes</button>
                </form>
                <form method="post" action="\(path)/disable" id="disable-form">
                <input type="hidden" name="\(BrowserForms.csrfField)" value="\(token)">
                <button type="submit" id="disable" class="danger">Turn two-step sign-in off</button>
                </form>
                </section>

                """
        case .off, .pending:
            return """
                <section class="card" id="two-step" data-state="off">
                <h2>Two-step sign-in is off</h2>
                <p>Turn it on to be asked for a code from an authenticator app after your password.</p>
                <form method="post" action="\(path)/setup" id="setup-form">
                <input type="hidden" name="\(BrowserForms.csrfField)" value="\(token)">
                <button type="submit" id="setup">Set up an authenticator app</button>
                </form>
                </section>

                """
        }
    }

    /// The setup of `uri`'s secret: scan or type it, then confirm with a first code posted to `action`.
    public static func setUp(_ uri: OTPAuthURI, action: String, csrfToken: String, error: String?) -> HTML {
        let secret = Base32.encode(uri.secret, padded: false)
        return """
            <section class="card" id="totp-setup">
            \(HTML.notice(error, .error))
            <h2>Set up your authenticator app</h2>
            <p>Scan the QR code with an authenticator app (any app of RFC 6238 codes), open the link on this device, or
            type the key by hand.</p>
            \(qrCode(uri.text))
            <p>Key: <code id="totp-secret">\(grouped(secret))</code></p>
            <p>Link: <a id="totp-uri" href="\(uri.text)"><code>\(uri.text)</code></a></p>
            <form method="post" action="\(action)" id="totp-confirm-form">
            <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrfToken)">
            <label for="code">The six-digit code the app shows now</label>
            <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="16">
            <button type="submit" id="totp-confirm">Turn on two-step sign-in</button>
            </form>
            </section>

            """
    }

    /// The second step of a sign-in: a code from the app, or a recovery code; `startOver` is the family's sign-in
    /// page.
    public static func codeForm(action: String, csrfToken: String, error: String?, startOver: String) -> HTML {
        """
        <section class="card" id="second-step">
        \(HTML.notice(error, .error))
        <form method="post" action="\(action)" id="second-step-form">
        <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrfToken)">
        <label for="code">The code from your authenticator app, or one of your recovery codes</label>
        <input id="code" name="code" autocomplete="one-time-code" required maxlength="32" autofocus>
        <button type="submit" id="submit">Continue</button>
        </form>
        <p class="hint"><a href="\(startOver)">Start over</a></p>
        </section>

        """
    }

    /// The main part of a second step's page for `holder` of `factors`: the code form when their factor is on; else
    /// (the policy requires one and they have none) the setup of the secret waiting for its first code, named by `uri`,
    /// with the notice that a factor is required; nil when their factor turned on meanwhile (start over).
    /// - Parameters:
    ///   - action: the second step's path, which both forms post to.
    ///   - startOver: the family's sign-in page.
    /// - Throws: storage and sealing errors.
    public static func secondStep(
        _ factors: SecondFactorStore, holder: String, uri: ([UInt8]) -> OTPAuthURI, action: String, csrfToken: String,
        error: String?, startOver: String
    ) async throws -> HTML? {
        if try await factors.state(holder: holder).isOn {
            return codeForm(action: action, csrfToken: csrfToken, error: error, startOver: startOver)
        }
        guard let secret = try await factors.secretToConfirm(holder: holder) else { return nil }
        return HTML.notice(setUpRequired, .warning)
            + setUp(uri(secret), action: action, csrfToken: csrfToken, error: error)
    }

    /// Recovery codes, shown this once, and where to go on.
    public static func recoveryCodes(_ codes: [String], next: String) -> HTML {
        var items: HTML = ""
        for code in codes { items += "<li><code>\(code)</code></li>\n" }
        return """
            <section class="card" id="recovery-codes">
            <h2>Your recovery codes</h2>
            <p>Each signs you in once where a code from your app is asked for, if you lose the app. Keep them somewhere
            safe: they are shown this once, and only their digests are kept.</p>
            <ul id="recovery-code-list">
            \(items)</ul>
            <p><a href="\(next)" id="continue">Continue</a></p>
            </section>

            """
    }

    /// The QR code of `uri` as inline SVG (`#totp-qr`); nothing when it is too long for one (past 213 bytes: the
    /// link and the key still serve).
    static func qrCode(_ uri: String) -> HTML {
        guard let symbol = try? QRCode(text: uri) else { return .empty }
        // The raw door: the SVG is the encoder's own markup of numbers only, nothing of the URI's text.
        return "<div id=\"totp-qr\">" + HTML(unsafe: symbol.svg()) + "</div>\n"
    }

    /// `text` in groups of four characters, as people type a key.
    static func grouped(_ text: String) -> String {
        var out = ""
        for (index, character) in text.enumerated() {
            if index > 0, index % 4 == 0 { out += " " }
            out.append(character)
        }
        return out
    }
}
