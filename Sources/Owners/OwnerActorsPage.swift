import BrowserPages
import OAuthGrants
import ServerKit

/// `/owner/actors`: the agent clients that may act for the owner (token exchange with `act`, RFC 8693; the JWT bearer
/// grant of an identity assertion), with a form to allow one (the owner's own agent clients offered, or an operator's
/// client by its id) and a button to take each one's leave away. Every interpolated value is escaped.
struct OwnerActorsPage {
    static let title = "Agents acting for you"

    var owner: Owner
    var csrfToken: String
    var actors: [OAuthOwnerActor]
    /// The owner's own agent clients (offered when not allowed yet).
    var ownClients: [OAuthConfidentialClient]
    /// Whether the server serves token exchange or the JWT bearer grant (else no form).
    var enabled = true
    var notice: PageNotice?
    var error: String?

    func render() -> HTML {
        var main = HTML.notice(notice) + HTML.notice(error, .error)
        main += enabled ? allowForm() : """
            <p id="actors-off">This server does not serve token exchange: no client can act for you.</p>

            """
        main += "<section class=\"card\" id=\"actors\">\n<h2>Clients that may act for you</h2>\n"
        if actors.isEmpty { main += "<p>None: no agent can take a token acting for you.</p>\n" }
        let operators = " (the operator's)"
        for actor in actors {
            main += """
                <div class="row" id="actor-\(actor.clientID)">
                <p><strong>\(actor.name)</strong> <code>\(actor.clientID)</code>\(actor.ownClient ? "" : operators)</p>
                <form method="post" action="/owner/actors/\(actor.clientID)/remove">
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <button type="submit">Remove</button>
                </form>
                </div>

                """
        }
        main += "</section>\n"
        return OwnerPageShell.document(title: Self.title, main: main, owner: owner, csrfToken: csrfToken)
    }

    /// The form that allows a client: the owner's agent clients not allowed yet, or any client id.
    private func allowForm() -> HTML {
        let allowed = Set(actors.map(\.clientID))
        var form: HTML = """
            <section class="card" id="allow-actor">
            <h2>Let an agent act for you</h2>
            <p class="hint">An agent client allowed here may trade one of your access tokens for a token that says both
            you and it (<code>act</code>, OAuth token exchange), never reaching more than the token it traded, and
            dying with it. Any other client is refused. Removing a client ends its tokens at once.</p>
            <form method="post" action="/owner/actors" id="allow-actor-form">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <label for="actor-client">Client id</label>
            <input id="actor-client" name="client_id" required maxlength="256" list="own-clients">
            <datalist id="own-clients">

            """
        for client in ownClients where !allowed.contains(client.clientID) {
            form += """
                <option value="\(client.clientID)">\(client.name)</option>

                """
        }
        form += """
            </datalist>
            <button type="submit">Allow</button>
            </form>
            </section>

            """
        return form
    }
}
