import AppPasswords
import BrowserPages
import ServerKit
import WebInbox

/// The Pro dashboard's "App passwords" (issue 87 item 2): a mail client's password for one of the user's accounts, at
/// IMAP, POP3 (a Mail.td account sends nothing, so no submission); the new one shown once (`#app-password-shown`),
/// each listed with when it was made and last used and a revoke button. Every value escaped.
struct ProAppPasswordsSection {
    var passwords: [AppPassword]
    /// The user's accounts' addresses: what an app password may open.
    var accounts: [String]
    /// An app password just made, shown this once.
    var shown: String?

    func render(_ csrf: String) -> HTML {
        let path = WebInboxService.dashboardPath + "/app-passwords"
        let hidden: HTML = "<input type=\"hidden\" name=\"\(BrowserForms.csrfField)\" value=\"\(csrf)\">"
        var html: HTML = """
            <section class="card" aria-labelledby="app-passwords-heading" id="app-passwords-section">\
            <h2 id="app-passwords-heading">App passwords</h2>
            <p class="hint">A mail client signs in to one account over IMAP or POP3 with its address and an app password,
            never to this dashboard or the API. Making one needs a recent sign-in.</p>

            """
        if let shown {
            html += """
                <div class="shown" id="app-password-result"><p>Your new app password, shown this once: copy it now.</p>
                <pre id="app-password-shown" class="key">\(shown)</pre></div>

                """
        }
        if !accounts.isEmpty {
            var options: HTML = ""
            for address in accounts { options += "<option value=\"\(address)\">\(address)</option>\n" }
            html += """
                <form method="post" action="\(path)" id="create-app-password-form">
                \(hidden)
                <label for="app-password-name">Name</label>
                <input id="app-password-name" name="name" required maxlength="\(AppPasswordStore.maxNameLength)">
                <label for="app-password-account">Account</label>
                <select id="app-password-account" name="account">
                \(options)</select>
                <fieldset><legend>Doors</legend>
                <label><input type="checkbox" name="door" value="imap" checked> IMAP</label>
                <label><input type="checkbox" name="door" value="pop3"> POP3</label>
                </fieldset>
                <button type="submit" id="create-app-password">Make app password</button>
                </form>

                """
        }
        if passwords.isEmpty { html += "<p id=\"no-app-passwords\">No app password yet.</p>\n" }
        for password in passwords {
            html += """
                <div class="row app-password" id="app-password-\(password.id)"><span class="name">\(password.name)</span> \
                \(password.address) at \(password.doors.names.joined(separator: ", ")); made \
                \(WebInboxProUserCall.time(password.createdAt)), \
                \(password.lastUsedAt.map { "last used \(WebInboxProUserCall.time($0))" } ?? "never used")
                <form method="post" action="\(path)/\(password.id)/revoke" class="inline">\(hidden)\
                <button type="submit" class="danger">Revoke</button></form></div>

                """
        }
        return html + "</section>\n"
    }
}
