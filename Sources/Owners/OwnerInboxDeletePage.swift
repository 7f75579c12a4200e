import BrowserPages
import Directory
import ServerKit

/// The confirmation before an inbox is deleted: what goes (the account, its key, every message), and a form where the
/// owner types the address. Every interpolated value is escaped.
///
/// Form fields: `confirm` (the inbox's address, typed) and the hidden `csrf_token`.
struct OwnerInboxDeletePage {
    var owner: Owner
    var csrfToken: String
    var inbox: OwnedInbox
    var error: String?

    func render() -> HTML {
        let main = HTML.notice(error, .error) + """
            <section class="card" id="confirm-delete" data-account-id="\(inbox.accountID)">
            <h2>Delete <code id="delete-address">\(inbox.address)</code>?</h2>
            <p>The inbox, its API key and its sessions, and <strong>all of its mail</strong> are deleted for good; an
            app connected to it loses it. This cannot be undone. To keep the inbox but stop holding it, unlink it
            instead.</p>
            <form method="post" action="/owner/inboxes/\(inbox.accountID)/delete" id="confirm-delete-form">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <label for="confirm">Type the address to confirm</label>
            <input id="confirm" name="confirm" required autocomplete="off" spellcheck="false" placeholder="\(inbox.address)">
            <button type="submit" id="confirm-delete-button" class="danger">Delete the inbox and its mail</button>
            </form>
            <p><a href="/owner" id="cancel-delete">Cancel: keep the inbox</a></p>
            </section>

            """
        return OwnerPageShell.document(title: "Delete an inbox", main: main, owner: owner, csrfToken: csrfToken)
    }
}
