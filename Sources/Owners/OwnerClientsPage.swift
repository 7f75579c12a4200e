import BrowserPages
import Directory
import OAuthGrants
import ServerKit

/// `/owner/clients`: an owner's agent clients (issue 86): confidential OAuth clients that take tokens of their own with
/// the client credentials grant, bound to inboxes the owner holds. Every interpolated value is escaped.
struct OwnerClientsPage {
    var owner: Owner
    var csrfToken: String
    var clients: [OAuthConfidentialClient]
    /// The owner's inboxes: what a client may be bound to, and how bound ids are shown.
    var inboxes: [OwnedInbox]
    /// Whether the server serves the client credentials grant (else no form).
    var enabled = true
    var notice: PageNotice?
    var error: String?
    /// A client just made: its id and secret, shown this once.
    var created: (clientID: String, secret: String)?

    func render() -> HTML {
        var main = HTML.notice(notice) + HTML.notice(error, .error)
        if let created {
            main += """
                <section class="card result" id="created-client">
                <h2>Client created</h2>
                <p>Client id <code id="client-id">\(created.clientID)</code>. Its secret is shown this once: copy it now.</p>
                <pre id="client-secret" class="key">\(created.secret)</pre>
                </section>

                """
        }
        if enabled {
            main += addForm()
        } else {
            main += """
                <p id="clients-off">This server does not serve the client credentials grant: no agent client can be \
                made.</p>

                """
        }
        main += "<section class=\"card\" id=\"clients\">\n<h2>Your agent clients</h2>\n"
        if clients.isEmpty { main += "<p>None yet.</p>\n" }
        for client in clients {
            let reached = client.inboxIDs.map { id in inboxes.first { $0.accountID == id }?.address ?? id }
            main += """
                <div class="row" id="client-\(client.clientID)">
                <p><strong>\(client.name)</strong> <code>\(client.clientID)</code>: \(client.permissions.scope) on \
                \(reached.isEmpty ? "no inbox" : reached.joined(separator: ", "))</p>
                <form method="post" action="/owner/clients/\(client.clientID)/delete">
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <button type="submit">Delete</button>
                </form>
                </div>

                """
        }
        main += "</section>\n"
        return OwnerPageShell.document(title: "Agent clients", main: main, owner: owner, csrfToken: csrfToken)
    }

    /// The form that makes a client: a name, the owner's inboxes and the permissions to tick.
    private func addForm() -> HTML {
        var form: HTML = """
            <section class="card" id="add-client">
            <h2>Make an agent client</h2>
            <p class="hint">An agent with no browser (a script, a scheduled job) signs in with its own client id and
            secret (OAuth client credentials, HTTP Basic at the token endpoint) and reaches only the inboxes ticked
            here, while you hold them, with the permissions ticked. Its tokens say the client acted, not you.</p>
            <form method="post" action="/owner/clients" id="add-client-form">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <label for="client-name">Name</label>
            <input id="client-name" name="name" required maxlength="200">
            <fieldset><legend>Inboxes it reaches</legend>

            """
        for inbox in inboxes {
            form += """
                <label><input type="checkbox" name="inbox" value="\(inbox.accountID)"> \(inbox.address)</label>

                """
        }
        form += """
            </fieldset>
            <fieldset><legend>Permissions</legend>
            <label><input type="checkbox" name="scope" value="mail.read" checked> Read mail</label>
            <label><input type="checkbox" name="scope" value="mail.send"> Send mail</label>
            </fieldset>
            <button type="submit">Make client</button>
            </form>
            </section>

            """
        return form
    }
}
