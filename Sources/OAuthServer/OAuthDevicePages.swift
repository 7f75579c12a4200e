import HTTP1
import Owners
import ServerKit

/// The verification page of the device flow (RFC 8628 section 3.3) in the owner pages' frame: the form where the
/// owner types the code their device shows (or checks the one `verification_uri_complete` brought), and the pages
/// that answer it. The consent page itself is ``OAuthPages/Consent``.
enum OAuthDevicePages {
    /// The code form: `user_code` and the CSRF token, posted to `/owner/device`.
    struct Entry {
        /// The code to fill in (from `verification_uri_complete`), shown as `BCDF-GHJK`.
        var userCode: String?
        var csrfToken: String
        var owner: Owner
        var error: String?

        func render() -> HTML {
            let prompt: HTML =
                userCode == nil
                ? "Enter the code your device shows."
                : "Check that this is the code your device shows, then continue."
            let main: HTML = """
                \(HTML.notice(error, .error))
                <div class="card">
                <p id="device-prompt">\(prompt) A device asks to sign in as you; you choose what it may reach next.</p>
                <form method="post" action="/owner/device" id="device-form">
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <p><label for="user_code">Code</label>
                <input type="text" id="user_code" name="user_code" value="\(userCode ?? "")" autocomplete="off" \
                autocapitalize="characters" spellcheck="false" maxlength="32" required \
                placeholder="BCDF-GHJK"></p>
                <p class="choices"><button type="submit" id="continue">Continue</button></p>
                </form>
                </div>
                """
            return OwnerPageShell.document(title: "Sign in a device", main: main, owner: owner, csrfToken: csrfToken)
        }
    }

    /// The page after the owner answered: what the device will be told.
    static func answered(approved: Bool, clientName: String?, owner: Owner, csrfToken: String) -> HTML {
        let name: HTML = "<strong>\(clientName ?? "The device")</strong>"
        let words: HTML =
            approved
            ? """
            \(name) is signed in. You can go back to your device; it gets its token at its next poll. You can \
            disconnect it at any time from your connected apps.
            """
            : "You denied the request. \(name) is told so at its next poll and gets no token."
        let main: HTML = """
            <div class="card"><p id="device-answered">\(words)</p>
            <p><a href="/owner">Back to your account</a></p></div>
            """
        return OwnerPageShell.document(
            title: approved ? "Device signed in" : "Request denied", main: main, owner: owner, csrfToken: csrfToken)
    }
}
