import BrowserPages
import Owners
import ServerKit

/// The consent page of an OpenID relying party's sign-in: which app, where the answer goes, what it learns.
/// Posts `decision` approve|deny, the CSRF token and the signed `request` to `/oauth/openid-consent`.
enum OIDCPages {
    struct Consent {
        var clientName: String
        var clientID: String
        var redirectURI: String
        var scopes: [String]
        var ticket: String
        var csrfToken: String
        var owner: Owner

        func render() -> HTML {
            let words = [
                "openid": "Sign you in with your account here (an identifier that does not change)",
                "email": "Your email address (\(owner.email))",
                "profile": "Your user name (your email address)",
                "mail.read": "Read the mail of your inboxes (IMAP), until you revoke it",
                "mail.send": "Send mail from your inboxes, until you revoke it",
            ]
            let items = scopes.map { scope -> HTML in "<li><code>\(scope)</code> \(words[scope] ?? scope)</li>" }
                .joined(separator: "\n")
            let main: HTML = """
                <div class="card">
                <p id="client"><strong id="client-name">\(clientName)</strong> (client <code>\(clientID)</code>) \
                asks to sign you in.</p>
                <p id="redirect-host">After you answer, you go back to <strong>\(OAuthURL.host(redirectURI))</strong>.</p>
                <h2>It will learn</h2>
                <ul id="claims">\(items)</ul>
                <p>Your answer is remembered until you revoke it.</p>
                <form method="post" action="/oauth/openid-consent" id="consent-form">
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <input type="hidden" name="request" value="\(ticket)">
                <p class="choices"><button type="submit" name="decision" value="approve" id="approve">Allow</button>
                <button type="submit" name="decision" value="deny" id="deny"\(ButtonStyle.secondary.classAttribute)>Deny</button></p>
                </form>
                </div>
                """
            return OwnerPageShell.document(title: "Sign in to \(clientName)?", main: main, owner: owner, csrfToken: csrfToken)
        }
    }
}

extension OIDCPages {
    /// The question RP-initiated logout asks when the request does not prove which app and owner sent it (no valid
    /// `id_token_hint` of the signed-in owner): posts `confirm`, the CSRF token and the request's parameters back to
    /// `/oauth/logout`.
    struct LogoutQuestion {
        var parameters: [(String, String)]
        var csrfToken: String
        var owner: Owner

        func render() -> HTML {
            let hidden = parameters.map { name, value -> HTML in
                "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">"
            }.joined(separator: "\n")
            let main: HTML = """
                <div class="card">
                <p id="logout-question">Sign out of this server and of the apps you signed in to with it?</p>
                <form method="post" action="/oauth/logout" id="logout-form">
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                \(hidden)
                <p class="choices"><button type="submit" name="confirm" value="yes" id="confirm">Sign out</button></p>
                </form>
                </div>
                """
            return OwnerPageShell.document(title: "Sign out?", main: main, owner: owner, csrfToken: csrfToken)
        }
    }
}
