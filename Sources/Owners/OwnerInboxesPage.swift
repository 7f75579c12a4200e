import Audit
import BrowserPages
import Directory
import ServerKit
import Time

/// `/owner`: the signed-in owner's inboxes (with rotate-key, unlink and delete buttons each), the forms to create an
/// inbox on the agent domain and to link one by its API key, and the connected apps (grants) with a revoke button each.
/// A key just made is shown once, in the page the post that made it redirects to. Below, "Recent activity": the owner's
/// own newest audit events (``activityLimit``). Every interpolated value is escaped.
///
/// Form fields (docs/api/oauth.md): create `username`; link `api_key`; every form the hidden `csrf_token`.
struct OwnerInboxesPage {
    var owner: Owner
    var csrfToken: String
    var agentDomain: String
    var inboxes: [OwnedInbox]
    var grants: [OwnerGrant]
    /// The OpenID apps the owner allowed (issue 88), each with a revoke button.
    var openIDApps: [(clientID: String, name: String, scopes: [String], grantedAt: Int64)] = []
    var notice: PageNotice?
    var error: String?
    /// A key just made (an inbox created, a key rotated), carried by the post's 303: whose, and the key, shown once.
    var shownKey: (address: String, apiKey: String, created: Bool)?
    /// What was typed in the create form, kept after an error (the link form's key is never echoed back).
    var typedUsername = ""
    /// Which form `error` belongs to ("create" or "link"), so it is shown beside it.
    var errorForm: String?
    /// The owner's newest audit events ("Recent activity"), newest first; only their own.
    var activity: [AuditEvent] = []
    /// How many events "Recent activity" shows.
    static let activityLimit = 20
    /// Whether the owner waits for the operator's approval before their inboxes may send outside (they signed up
    /// themselves, and sending outside needs an owner the operator answers for).
    var awaitingApproval = false
    /// The "Sign-in methods" section (``OwnerSignInMethodsSection``), rendered; empty when neither passkeys nor
    /// providers are offered.
    var signInMethods: HTML = .empty

    func render() -> HTML {
        var main = HTML.notice(notice)
        if errorForm == nil { main += HTML.notice(error, .error) }
        if awaitingApproval {
            main += """
                <p class="flash warning" role="status" id="awaiting-approval" data-notice="warning">Waiting for approval to send outside: your inboxes \
                receive mail and write to this server's addresses, but mail to other domains stays in this server's \
                outbox until the operator approves your account.</p>

                """
        }
        if let shownKey {
            main += """
                <section class="card result" id="api-key-shown">
                <h2>\(shownKey.created ? "Inbox created" : "New API key")</h2>
                <p>The API key of <code id="key-address">\(shownKey.address)</code>\(shownKey.created ? "" : " (the old key no longer works)").
                It is shown this once and cannot be shown again: copy it now and keep it where your agent reads it.</p>
                <pre id="api-key" class="key">\(shownKey.apiKey)</pre>
                <p class="hint">Click the key to select all of it, then copy (Ctrl+C or ⌘C).</p>
                </section>

                """
        }
        main += inboxSection() + formsSection() + appsSection() + openIDSection() + signInMethods + activitySection()
        return OwnerPageShell.document(title: "Your inboxes", main: main, owner: owner, csrfToken: csrfToken)
    }

    /// `seconds` as every page shows an instant (``HTML/time(_:)``).
    static func time(_ seconds: Int64) -> HTML { HTML.time(seconds) }

    private func hidden() -> HTML {
        "<input type=\"hidden\" name=\"\(OwnerBrowser.csrfField)\" value=\"\(csrfToken)\">"
    }

    private func inboxSection() -> HTML {
        guard !inboxes.isEmpty else {
            return """
                <section class="card" id="inboxes"><h2>Inboxes</h2>
                <p class="hint" id="no-inboxes">You hold no inboxes yet: create one or link one below.</p></section>

                """
        }
        var rows: HTML = ""
        for inbox in inboxes {
            rows += """
                <tr class="inbox" data-account-id="\(inbox.accountID)">
                <td class="address" data-label="Address"><span class="inbox-address">\(HTML.address(inbox.address))</span><br><code class="account-id" title="Account id">\(inbox.accountID)</code></td>
                <td class="status" data-label="Status">active</td><td data-label="Linked">\(Self.time(inbox.linkedAt))</td>
                <td data-label="Activated">\(Self.time(inbox.activatedAt))</td>
                <td class="actions"><form method="post" action="/owner/inboxes/\(inbox.accountID)/rotate-key" class="inline rotate-key">
                \(hidden())<button type="submit">Rotate key</button></form>
                <form method="post" action="/owner/inboxes/\(inbox.accountID)/unlink" class="inline unlink-inbox">
                \(hidden())<button type="submit" class="danger">Unlink</button></form>
                <form method="post" action="/owner/inboxes/\(inbox.accountID)/delete" class="inline delete-inbox">
                \(hidden())<button type="submit" class="danger">Delete…</button></form></td>
                </tr>

                """
        }
        return """
            <section class="card" id="inboxes"><h2>Inboxes</h2>
            <table>
            <thead><tr><th>Address and account id</th><th>Status</th><th>Linked</th><th>Activated</th><th></th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            <p class="hint">Rotating a key makes a new one and stops the old one at once. Unlinking leaves the inbox and
            its key as they are, held by nobody. Deleting removes the inbox and all its mail, after you confirm.</p>
            </section>

            """
    }

    private func formsSection() -> HTML {
        let createError = errorForm == "create" ? HTML.notice(error, .error) : ""
        let linkError = errorForm == "link" ? HTML.notice(error, .error) : ""
        return """
            <div class="split">
            <section class="card" id="create-inbox">
            <h2>Create an inbox</h2>
            \(createError)
            <form method="post" action="/owner/inboxes" id="create-inbox-form">
            \(hidden())
            <label for="username">Username</label>
            <input id="username" name="username" required autocomplete="off" placeholder="myagent" value="\(typedUsername)">
            <p class="hint">The address is <em>username</em>@\(agentDomain): 5 to 21 of a-z 0-9 . _ -, starting and
            ending with a letter or digit. Its API key is shown once.</p>
            <button type="submit">Create inbox</button>
            </form>
            </section>
            <section class="card" id="link-inbox">
            <h2>Link an existing inbox</h2>
            \(linkError)
            <form method="post" action="/owner/inboxes/link" id="link-inbox-form">
            \(hidden())
            <label for="api_key">The inbox's API key</label>
            <input id="api_key" name="api_key" required autocomplete="off" spellcheck="false" placeholder="postern_ak_…">
            <p class="hint">An inbox an agent signed up for itself: presenting its key proves it is yours to hold.</p>
            <button type="submit">Link inbox</button>
            </form>
            </section>
            </div>

            """
    }

    private func activitySection() -> HTML {
        // An audit field's control characters shown as escapes (`AuditText`), then escaped as HTML.
        let audit = AuditText.escaped
        guard !activity.isEmpty else {
            return """
                <section class="card" id="activity"><h2>Recent activity</h2>
                <p class="hint" id="no-activity">Nothing recorded yet.</p></section>

                """
        }
        var rows: HTML = ""
        for event in activity.prefix(Self.activityLimit) {
            rows += """
                <tr class="event" data-action="\(audit(event.action.rawValue))">
                <td data-label="When">\(Self.time(event.time))</td><td class="action" data-label="What">\(audit(event.action.words))</td>
                <td class="target" data-label="On"><span class="whole">\(audit(event.target))</span></td><td class="client" data-label="From">\(audit(event.clientAddress ?? ""))</td>
                </tr>

                """
        }
        return """
            <section class="card" id="activity"><h2>Recent activity</h2>
            <div class="table-wrap">
            <table>
            <thead><tr><th>When</th><th>What</th><th>On</th><th>From</th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </div>
            <p class="hint">Your newest \(Self.activityLimit) sign-ins and changes, newest first.</p>
            </section>

            """
    }

    /// "Apps you sign in to": the OpenID apps whose consent is remembered; revoking one forgets it (the next sign-in
    /// asks again) and ends the app's access to userinfo.
    private func openIDSection() -> HTML {
        guard !openIDApps.isEmpty else { return .empty }
        var rows: HTML = ""
        for app in openIDApps {
            rows += """
                <tr class="openid-app" data-client-id="\(app.clientID)">
                <td class="client-name" data-label="App">\(app.name)</td>
                <td data-label="Client id"><code class="client-id">\(app.clientID)</code></td>
                <td class="scopes" data-label="It learns">\(app.scopes.joined(separator: " "))</td>
                <td data-label="Allowed">\(Self.time(app.grantedAt))</td>
                <td class="actions"><form method="post" action="/owner/openid-apps/\(app.clientID)/revoke" \
                class="inline revoke-openid-app">\(hidden())<button type="submit" class="danger">Revoke</button></form></td>
                </tr>

                """
        }
        return """
            <section class="card" id="openid-apps"><h2>Apps you sign in to</h2>
            <div class="table-wrap">
            <table>
            <thead><tr><th>App</th><th>Client id</th><th>It learns</th><th>Allowed</th><th></th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </div>
            <p class="hint">Revoking an app forgets your answer: it asks again at your next sign-in there.</p>
            </section>

            """
    }

    private func appsSection() -> HTML {
        guard !grants.isEmpty else {
            return """
                <section class="card" id="apps"><h2>Connected apps</h2>
                <p class="hint" id="no-apps">No app is connected. Apps ask for access through OAuth; what you approve
                appears here, and you can revoke it at any time.</p></section>

                """
        }
        var rows: HTML = ""
        for grant in grants {
            let inbox = grant.defaultAccountID.map { id in inboxes.first { $0.accountID == id }?.address ?? id } ?? "none"
            let reach =
                grant.boundAccountID.map { id in
                    inboxes.first { $0.accountID == id }?.address ?? "only an inbox you no longer hold"
                } ?? "all your inboxes"
            rows += """
                <tr class="app" data-grant-id="\(grant.id)">
                <td class="client-name" data-label="App">\(grant.clientName ?? "(unnamed app)")</td>
                <td data-label="Client id"><code class="client-id">\(grant.clientID)</code></td>
                <td class="scopes" data-label="Scopes">\(grant.scopes.joined(separator: " "))</td><td data-label="Resource"><code>\(grant.resource)</code></td>
                <td class="reach" data-label="Can reach">\(reach)</td><td class="default-inbox" data-label="Default inbox">\(inbox)</td>
                <td data-label="Granted">\(Self.time(grant.grantedAt))</td>
                <td class="actions"><form method="post" action="/owner/apps/\(grant.id)/revoke" class="inline revoke-app">
                \(hidden())<button type="submit" class="danger">Revoke</button></form></td>
                </tr>

                """
        }
        return """
            <section class="card" id="apps"><h2>Connected apps</h2>
            <div class="table-wrap">
            <table>
            <thead><tr><th>App</th><th>Client id</th><th>Scopes</th><th>Resource</th><th>Can reach</th>
            <th>Default inbox</th><th>Granted</th><th></th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </div>
            <p class="hint">Revoking an app ends its access at once: its tokens stop working.</p>
            </section>

            """
    }
}
