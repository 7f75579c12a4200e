import AppPasswords
import BrowserPages
import Directory
import ServerKit

/// `/owner/app-passwords`: an owner's app passwords (issue 87 item 2), each opening one inbox they hold at the mail
/// doors ticked, for a mail client that cannot sign in with a passkey or a provider. A new one's secret is shown this
/// once. Every interpolated value is escaped.
struct OwnerAppPasswordsPage {
    var owner: Owner
    var csrfToken: String
    var passwords: [AppPassword]
    /// The owner's inboxes: what an app password may open.
    var inboxes: [OwnedInbox]
    /// Whether the Apple Mail profile download is offered.
    var appleMail: Bool
    var notice: PageNotice?
    var error: String?
    /// An app password just made: its name, inbox and secret, shown this once.
    var created: (password: AppPassword, secret: String)?

    func render() -> HTML {
        var main = HTML.notice(notice) + HTML.notice(error, .error)
        if let created {
            main += """
                <section class="card result" id="created-app-password">
                <h2>App password made</h2>
                <p>Give your mail client the user name <code id="app-password-user">\(created.password.address)</code> \
                and this password. It is shown this once: copy it now.</p>
                <pre id="app-password-secret" class="key">\(created.secret)</pre>
                </section>

                """
        }
        let hidden: HTML = "<input type=\"hidden\" name=\"\(OwnerBrowser.csrfField)\" value=\"\(csrfToken)\">"
        if inboxes.isEmpty {
            main += "<p id=\"no-inboxes\">Make or link an inbox on <a href=\"/owner\">Your inboxes</a> first.</p>\n"
        } else {
            main += makeForm(hidden) + appleMailForm(hidden)
        }
        main += "<section class=\"card\" id=\"app-passwords\">\n<h2>Your app passwords</h2>\n"
        if passwords.isEmpty { main += "<p id=\"no-app-passwords\">None yet.</p>\n" }
        for password in passwords {
            main += """
                <div class="row app-password" id="app-password-\(password.id)">
                <p><strong>\(password.name)</strong>: \(password.address) at \(password.doors.names.joined(separator: ", ")); \
                made \(HTML.time(password.createdAt)), last used \(password.lastUsedAt.map(HTML.time) ?? "never")</p>
                <form method="post" action="/owner/app-passwords/\(password.id)/revoke">
                \(hidden)<button type="submit" class="danger">Revoke</button>
                </form>
                </div>

                """
        }
        main += "</section>\n"
        return OwnerPageShell.document(title: OwnerAppPasswordPages.title, main: main, owner: owner, csrfToken: csrfToken)
    }

    private func inboxOptions() -> HTML {
        var options: HTML = ""
        for inbox in inboxes { options += "<option value=\"\(inbox.accountID)\">\(inbox.address)</option>\n" }
        return options
    }

    /// The form that makes an app password: a name, the inbox and the doors.
    private func makeForm(_ hidden: HTML) -> HTML {
        """
        <section class="card" id="add-app-password">
        <h2>Make an app password</h2>
        <p class="hint">A mail client (mutt, Thunderbird, your phone's mail app) signs in with your inbox's address and an
        app password: it opens that one inbox, at the doors ticked, until you revoke it. It never signs in to these
        pages. Making one needs a recent sign-in.</p>
        <form method="post" action="/owner/app-passwords" id="add-app-password-form">
        \(hidden)
        <label for="app-password-name">Name</label>
        <input id="app-password-name" name="name" required maxlength="\(AppPasswordStore.maxNameLength)">
        <label for="app-password-inbox">Inbox</label>
        <select id="app-password-inbox" name="inbox">
        \(inboxOptions())</select>
        <fieldset><legend>Doors</legend>
        <label><input type="checkbox" name="door" value="imap" checked> IMAP (read)</label>
        <label><input type="checkbox" name="door" value="pop3"> POP3 (read)</label>
        <label><input type="checkbox" name="door" value="submission" checked> Submission (send)</label>
        </fieldset>
        <button type="submit">Make app password</button>
        </form>
        </section>

        """
    }

    /// The Apple Mail profile's form: the inbox; the download carries a new app password for IMAP and submission.
    private func appleMailForm(_ hidden: HTML) -> HTML {
        guard appleMail else { return .empty }
        return """
            <section class="card" id="apple-mail">
            <h2>Apple Mail (iPhone, iPad, Mac)</h2>
            <p class="hint">Downloads a configuration profile (<code>.mobileconfig</code>) with the incoming (IMAP) and
            outgoing (submission) servers and a new app password named "Apple Mail" made for it; open it and install it
            in Settings. Revoke that app password here to cut the device off.</p>
            <form method="post" action="/owner/app-passwords/apple-mail" id="apple-mail-form">
            \(hidden)
            <label for="apple-mail-inbox">Inbox</label>
            <select id="apple-mail-inbox" name="inbox">
            \(inboxOptions())</select>
            <button type="submit">Download profile</button>
            </form>
            </section>

            """
    }
}
