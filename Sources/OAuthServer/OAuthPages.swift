import BrowserPages
import Directory
import HTTP1
import Owners
import ServerKit

/// The authorization server's consent page, in the owner pages' frame (its error pages are
/// `BrowserPage.message`).
enum OAuthPages {
    /// The consent form (the form contract of issue 28): `scope` checkboxes, `account_id` radios or `new_inbox`,
    /// `reach` all|inbox (every inbox the owner holds with this one as default, or only this one; absent for an
    /// inbox resource, which is bound already), `decision` approve|deny, the CSRF token and the signed `request`;
    /// posts to `/oauth/consent` (the code flow) or `/owner/device` (a device authorization, RFC 8628).
    struct Consent {
        var clientName: String?
        var clientID: String
        /// The host of a metadata-document client's URL (whose owner vouches for the name); nil for registered ones.
        var clientHost: String?
        /// Where the code flow's answer goes; nil for a device authorization.
        var redirectURI: String?
        /// The user code of a device authorization (`BCDF-GHJK`), shown for the owner to compare with the device's.
        var userCode: String?
        /// Where the form posts: `/oauth/consent`, or `/owner/device` for a device authorization.
        var action: String
        var scopes: [String]
        var resource: String
        /// The inboxes the owner may pick; one only for an inbox resource.
        var inboxes: [OwnedInbox]
        /// Whether the owner may create an inbox here (not for an inbox resource).
        var mayCreate: Bool
        var ticket: String
        var csrfToken: String
        var owner: Owner
        var error: String?

        func render() -> HTML {
            let words = [
                "mail.read": "Read mail in the inbox (messages, mailboxes, search)",
                "mail.send": "Send mail from the inbox",
            ]
            let scopeBoxes = scopes.map { scope -> HTML in
                """
                <label><input type="checkbox" name="scope" value="\(scope)" checked> <code>\(scope)</code> \
                \(words[scope] ?? scope)</label><br>
                """
            }.joined(separator: "\n")
            let radios = inboxes.enumerated().map { index, inbox -> HTML in
                """
                <label><input type="radio" name="account_id" value="\(inbox.accountID)"\(index == 0 ? " checked" : "")> \
                \(inbox.address)</label><br>
                """
            }.joined(separator: "\n")
            let verbs =
                scopes.contains("mail.read")
                ? (scopes.contains("mail.send") ? "read and send from" : "read") : "send from"
            let name: HTML = "<strong>\(clientName ?? "This app")</strong>"
            // What the grant reaches, in words. The narrowest choice comes first and is the one checked (issue 83 item
            // 11); every inbox (Atomic's grants are the owner's, not one inbox's) is there to choose.
            let reach: HTML =
                mayCreate
                ? """
                <h2>Which inboxes</h2>
                <p id="reach-words">If you allow, \(name) can \(verbs) the inbox picked above and no other, unless \
                you choose every inbox you hold: then it reaches them all, including ones you add later, with this one \
                as its default.</p>
                <label><input type="radio" name="reach" value="inbox" id="reach-inbox" checked> Only this inbox\
                </label><br>
                <label><input type="radio" name="reach" value="all" id="reach-all"> Every inbox you hold, including \
                ones you add later (this one as default)</label>
                """
                : """
                <p id="reach-words">If you allow, \(name) can \(verbs) this inbox only.</p>
                """
            let create: HTML =
                mayCreate
                ? """
                <p><label for="new_inbox">Or create a new inbox (username):</label>
                <input type="text" id="new_inbox" name="new_inbox" autocomplete="off" pattern="[a-z0-9._-]{5,21}"></p>
                """ : ""
            let main: HTML = """
                \(HTML.notice(error, .error))
                <div class="card">
                <p id="client"><strong id="client-name">\(clientName ?? "An unnamed app")</strong> \
                \(clientHost.map { host -> HTML in "from <strong id=\"client-host\">\(host)</strong> " })\
                (client <code>\(clientID)</code>) asks to use your mail.</p>
                \(destination)
                <p id="resource">Access to: <code>\(resource)</code></p>
                <form method="post" action="\(action)" id="consent-form">
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <input type="hidden" name="request" value="\(ticket)">
                <h2>Permissions</h2>
                \(scopeBoxes)
                <h2>Inbox</h2>
                \(radios.isEmpty ? "<p>You have no inbox yet.</p>" : radios)
                \(create)
                \(reach)
                <p class="choices"><button type="submit" name="decision" value="approve" id="approve">Allow</button>
                <button type="submit" name="decision" value="deny" id="deny"\(ButtonStyle.secondary.classAttribute)>Deny</button></p>
                </form>
                </div>
                """
            return OwnerPageShell.document(title: "Allow access?", main: main, owner: owner, csrfToken: csrfToken)
        }

        /// Where the answer goes: back to the app's host, or (a device authorization) to the device showing the code.
        private var destination: HTML {
            guard let redirectURI else {
                return """
                    <p id="device-code">Your device shows the code <strong id="user-code">\(userCode ?? "")</strong>. \
                    Allow only if it is the code on the device you are signing in, and you started that sign-in.</p>
                    """
            }
            let host = OAuthURL.host(redirectURI)
            let loopback = OAuthRedirectURI.loopbackHosts.contains(host.lowercased())
            return """
                <p id="redirect-host">After you answer, you go back to <strong>\(host)</strong>.\
                \(loopback ? " This app runs on your own computer." : "")</p>
                \(hostNotice(redirectHost: host))
                """
        }

        /// For a metadata-document client whose redirect URI is on another host than its `client_id` URL: a notice
        /// that the answer goes to a host the document's publisher only names (the MCP spec's consent rule).
        private func hostNotice(redirectHost: String) -> HTML {
            guard let clientHost, clientHost.lowercased() != redirectHost.lowercased() else { return .empty }
            return """
                <p id="redirect-host-differs" class="warning"><strong>Note:</strong> this app is published at \
                <strong>\(clientHost)</strong> but sends your answer to another host, \
                <strong>\(redirectHost)</strong>. Allow only if you expect that.</p>
                """
        }
    }
}
