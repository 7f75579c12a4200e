import BrowserPages
import HTTP1
import MailboxAccounts
import ServerKit
import WebInbox
import Webhooks

/// The Pro dashboard, rendered (ids in ``ProDashboardController/dashboardPage(_:_:)``): every value escaped, every form
/// a CSRF-carrying post to `/inbox/dashboard/...`.
struct ProDashboardPage {
    /// The user's accounts, oldest first, with their usage.
    var accounts: [(address: String, used: Int64, quota: Int64)]
    /// The user's API tokens, revoked ones too.
    var tokens: [ProTokenInfo]
    /// The user's custom domains, oldest first.
    var domains: [ProDomain]
    /// The user's webhook (one at most).
    var webhook: WebhookSummary?
    /// Its recent delivery attempts, newest first.
    var deliveries: [WebhookDeliveryRecord]
    /// The user's SMTP sandbox, nil before its first SMTP connection.
    var sandbox: (address: String, count: Int, used: Int64)?
    /// What the last post did, shown this once.
    var flash: WebInboxFlash
    /// "Sign-in methods": the user's password, passkeys and linked providers
    /// (``ProSignInMethods/section(_:)``); empty without passkeys and providers.
    var signInMethods: HTML = .empty
    /// "App passwords" (issue 87); nil shows none.
    var appPasswords: ProAppPasswordsSection?
    /// Whether "Two-step sign-in" links to `/inbox/two-step` (issue 88; off with `POSTERN_PRO_SECOND_FACTOR=off`).
    var twoStep = false

    func render(_ call: WebInboxProUserCall) -> HTML {
        let csrf = call.csrfToken
        let main = [
            HTML.notice(flash.notice),
            accountsSection(), signInMethods, twoStepSection(), tokensSection(csrf), appPasswords?.render(csrf) ?? .empty,
            domainsSection(csrf), webhookSection(csrf), sandboxSection(),
        ].joined()
        return call.document("Pro dashboard", main: main, css: Self.css)
    }

    private static let path = WebInboxService.dashboardPath

    /// A POST form to `action` with the CSRF field, a button of `style` reading `label` and `attributes` on the form.
    private static func post(
        _ action: String, _ csrf: String, label: String, id: String? = nil, aria: String? = nil,
        style: ButtonStyle = .primary
    ) -> HTML {
        let formID = id.map { id -> HTML in " id=\"\(id)\"" }
        let name = aria.map { aria -> HTML in " aria-label=\"\(aria)\"" }
        return """
            <form method="post" action="\(action)" class="inline"\(formID)>\
            <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrf)">\
            <button type="submit"\(style.classAttribute)\(name)>\(label)</button></form>
            """
    }

    /// A link to the user's second factor (`#two-step-link`), where it is set up and turned off.
    private func twoStepSection() -> HTML {
        guard twoStep else { return .empty }
        return """
            <section class="card" aria-labelledby="two-step-heading"><h2 id="two-step-heading">Two-step sign-in</h2>
            <p>A code from an authenticator app after your password: \
            <a id="two-step-link" href="\(ProTwoStepPages.path)">set it up or change it</a>.</p></section>

            """
    }

    private func accountsSection() -> HTML {
        let items = accounts.map { account -> HTML in
            """
            <li class="account"><a class="address" href="\(WebInboxProUserCall.mailboxPath(account.address))">\
            \(HTML.address(account.address))</a> <span class="usage">\(WebInboxProUserCall.size(account.used)) of \
            \(WebInboxProUserCall.size(account.quota))</span></li>
            """
        }.joined(separator: "\n")
        let list: HTML =
            accounts.isEmpty
            ? "<div id=\"accounts\"><p id=\"no-accounts\">No account yet: make one with the API.</p></div>"
            : "<ul id=\"accounts\">\n\(items)\n</ul>"
        return """
            <section class="card" aria-labelledby="accounts-heading"><h2 id="accounts-heading">Accounts</h2>\
            \(list)</section>

            """
    }

    private func tokensSection(_ csrf: String) -> HTML {
        var html: HTML = """
            <section class="card" aria-labelledby="tokens-heading"><h2 id="tokens-heading">API tokens</h2>
            <p class="hint">A <code>tm_pro_</code> token opens the API as you, and signs in to the SMTP sandbox.</p>

            """
        if let token = flash.token {
            html += """
                <div class="shown" id="token-result"><p>Your new token, shown this once: copy it now.</p>
                <pre id="token-shown" class="key">\(token)</pre></div>

                """
        }
        html += """
            <form method="post" action="\(Self.path)/tokens" id="create-token-form" class="row">
            <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrf)">
            <div><label for="token-name">Name</label>
            <input id="token-name" name="name" maxlength="100" autocomplete="off" placeholder="ci"></div>
            <button type="submit" id="create-token">Create token</button>
            </form>

            """
        let items = tokens.map { token -> HTML in
            let lastUsed: HTML = token.lastUsedAt.map { "last used \(WebInboxProUserCall.time($0))" } ?? "never used"
            var line: HTML = """
                <li class="token" id="token-\(token.id)"><span class="name">\(token.name)</span> \
                <span class="created">made \(WebInboxProUserCall.time(token.createdAt))</span> \
                <span class="last-used">\(lastUsed)</span>
                """
            if let revoked = token.revokedAt {
                line += " <span class=\"revoked\">revoked \(WebInboxProUserCall.time(revoked))</span>"
            } else {
                let revoke = Self.post(
                    "\(Self.path)/tokens/\(PercentEncoding.encode(token.id))/revoke", csrf, label: "Revoke",
                    aria: "Revoke token \(token.name)", style: .danger)
                line += " \(revoke)"
            }
            return line + "</li>" as HTML
        }.joined(separator: "\n")
        html +=
            tokens.isEmpty
            ? "<div id=\"tokens\"><p id=\"no-tokens\">No token yet.</p></div>"
            : "<ul id=\"tokens\" class=\"items\">\n\(items)\n</ul>"
        return html + "</section>\n" as HTML
    }

    private func domainsSection(_ csrf: String) -> HTML {
        var html: HTML = """
            <section class="card" aria-labelledby="domains-heading"><h2 id="domains-heading">Custom domains</h2>
            <p class="hint">Publish each record, then verify: the TXT token at the domain proves it is yours; the MX
            brings its mail here; the DKIM records (<code>_domainkey</code>) publish the keys its mail is signed with;
            SPF says which hosts may send for it (with a relay, your provider's <code>include:</code> instead of
            <code>mx</code>) and DMARC (<code>_dmarc</code>) what receivers do with mail that fails. A record's state
            is what the last verification found, kept until the next.</p>
            <form method="post" action="\(Self.path)/domains" id="add-domain-form" class="row">
            <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrf)">
            <div><label for="domain">Domain</label>
            <input id="domain" name="domain" required autocomplete="off" placeholder="example.com"></div>
            <button type="submit" id="add-domain">Add domain</button>
            </form>

            """
        // `#domain-records` only once there is a record: a page that shows it has the domain just added.
        guard !domains.isEmpty else { return html + "<p id=\"no-domains\">No domain yet.</p></section>\n" as HTML }
        html += "<div id=\"domain-records\">\n"
        for domain in domains { html += domainBlock(domain, csrf) }
        return html + "</div></section>\n" as HTML
    }

    private func domainBlock(_ domain: ProDomain, _ csrf: String) -> HTML {
        let rows = (domain.records + domain.policies).enumerated().map { index, record -> HTML in
            let state = Self.state(record, index: index, of: domain)
            // Only an MX has a priority: the other rows' cell carries no label (a phone shows no bare "Priority:").
            let priority: HTML =
                record.priority.map { "<td class=\"priority\" data-label=\"Priority\">\($0)</td>" }
                ?? "<td class=\"priority\"></td>"
            return """
                <tr class="record"><td class="type" data-label="Type">\(record.type)</td>\
                <td class="host" data-label="Host"><code>\(record.host)</code></td>\
                <td class="value" data-label="Value"><code>\(record.value)</code></td>\
                \(priority)\
                <td class="state" data-label="State">\(state)</td></tr>
                """
        }.joined(separator: "\n")
        let id = PercentEncoding.encode(domain.claim.id)
        return """
            <section class="domain" id="domain-\(domain.claim.id)" aria-label="\(domain.claim.domain)">
            <h3>\(domain.claim.domain) <span class="domain-state">\(domain.claim.isVerified ? "verified" : "pending")</span></h3>
            <div class="table-wrap"><table>
            <thead><tr><th scope="col">Type</th><th scope="col">Host</th><th scope="col">Value</th>\
            <th scope="col">Priority</th><th scope="col">State</th></tr></thead>
            <tbody>
            \(rows)
            </tbody></table></div>
            \(Self.post("\(Self.path)/domains/\(id)/verify", csrf, label: "Verify", aria: "Verify \(domain.claim.domain)"))\
            \(Self.post("\(Self.path)/domains/\(id)/delete", csrf, label: "Remove", aria: "Remove \(domain.claim.domain)", style: .danger))
            </section>

            """
    }

    /// A record's state: what the last check kept for it (every record's state is kept with the domain, the check a
    /// verification just made included), else what the domain itself says (the TXT token verified, the MX seen).
    private static func state(_ record: ProDomainRecord, index: Int, of domain: ProDomain) -> String {
        if let found = record.ok { return found ? (index == 0 ? "verified" : "published") : "not found" }
        switch index {
        case 0: return domain.claim.isVerified ? "verified" : "pending"
        case 1: return domain.claim.mxConfigured ? "published" : "pending"
        default: return "pending"
        }
    }

    private func webhookSection(_ csrf: String) -> HTML {
        var html: HTML = """
            <section class="card" id="webhook" aria-labelledby="webhook-heading"><h2 id="webhook-heading">Webhook</h2>

            """
        if let secret = flash.webhookSecret {
            html += """
                <div class="shown" id="webhook-secret-result"><p>The signing secret, shown this once: copy it now.</p>
                <pre id="webhook-secret-shown" class="key">\(secret)</pre></div>

                """
        }
        guard let webhook else {
            return html + """
                <p class="hint">One webhook: each message your accounts or sandbox receive is posted to it, signed.</p>
                <form method="post" action="\(Self.path)/webhook" id="create-webhook-form">
                <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrf)">
                <label for="webhook-url">URL (https)</label>
                <input id="webhook-url" name="url" type="url" required
                placeholder="https://example.com/hooks/mail">
                <fieldset><legend>Events</legend>
                <label class="check"><input type="checkbox" name="events" value="email.received" checked>
                <code>email.received</code>: a message arrived</label>
                </fieldset>
                <button type="submit" id="create-webhook">Create webhook</button>
                </form></section>

                """
        }
        let id = PercentEncoding.encode(webhook.id)
        let base = "\(Self.path)/webhook/\(id)"
        let rotate = Self.post(base + "/rotate", csrf, label: "Rotate secret", id: "rotate-webhook-form")
        let delete = Self.post(base + "/delete", csrf, label: "Delete webhook", id: "delete-webhook-form", style: .danger)
        let failures = "\(webhook.failureCount) " + (webhook.failureCount == 1 ? "failure" : "failures")
        html += """
            <dl class="headers" id="webhook-details">
            <dt>URL</dt><dd class="url"><code>\(webhook.url)</code></dd>
            <dt>Events</dt><dd class="events">\(webhook.events.joined(separator: ", "))</dd>
            <dt>Status</dt><dd class="status">\(webhook.status) (\(failures) in a row)</dd>
            <dt>Created</dt><dd>\(WebInboxProUserCall.time(webhook.createdAt))</dd>
            </dl>
            <p>\(rotate)\(delete)</p>
            <h3>Delivery log</h3>

            """
        if deliveries.isEmpty {
            html += "<p id=\"no-deliveries\">No delivery yet.</p>\n"
        } else {
            let rows = deliveries.map { attempt -> HTML in
                let status = attempt.statusCode.map { "HTTP \($0)" } ?? ""
                let outcome = [status, attempt.error ?? ""].filter { !$0.isEmpty }.joined(separator: " · ")
                return """
                    <tr class="delivery"><td class="time" data-label="Time">\(WebInboxProUserCall.time(attempt.createdMS / 1000))</td>\
                    <td class="event" data-label="Event">\(attempt.eventType)</td>\
                    <td class="attempt" data-label="Attempt">\(attempt.attempt)</td>\
                    <td class="status" data-label="Status">\(outcome)</td></tr>
                    """
            }.joined(separator: "\n")
            html += """
                <div class="table-wrap"><table id="deliveries">
                <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Attempt</th>\
                <th scope="col">Status</th></tr></thead>
                <tbody>
                \(rows)
                </tbody></table></div>

                """
        }
        return html + "</section>\n" as HTML
    }

    private func sandboxSection() -> HTML {
        var html: HTML = """
            <section class="card" id="sandbox" aria-labelledby="sandbox-heading">
            <h2 id="sandbox-heading">SMTP sandbox</h2>

            """
        if let sandbox {
            html += """
                <p><span id="sandbox-captures">\(sandbox.count)</span> \
                \(sandbox.count == 1 ? "capture" : "captures")
                (\(WebInboxProUserCall.size(sandbox.used))), kept at <code>\(sandbox.address)</code>.
                <a id="sandbox-link" href="\(WebInboxProUserCall.mailboxPath(sandbox.address))">Open the Sandbox</a></p>

                """
        } else {
            html += """
                <p id="no-sandbox">No capture yet: the sandbox opens at the first SMTP sign-in with one of your API
                tokens as the password.</p>

                """
        }
        return html + "</section>\n" as HTML
    }

    static let css = """
        .row{display:flex;gap:.5rem;flex-wrap:wrap;align-items:end}.row label{margin:0}.row input{width:auto}
        .row button{margin:0}ul.items,#accounts{padding-left:1.25rem}ul.items li{margin:.35rem 0}
        #accounts .address{overflow-wrap:break-word}
        pre.key{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-all}
        #accounts .account{float:none;display:list-item;color:inherit}
        .record .value code,#webhook code,#sandbox code{overflow-wrap:anywhere;word-break:break-all}
        .record .host code{overflow-wrap:anywhere}.record .host{min-width:10rem}
        @media (max-width:40rem){.record td::before,.delivery td::before{content:attr(data-label) ": ";
        color:var(--muted);font-size:.85rem}.record .host{min-width:0}.record td.priority:empty{display:none}}
        .domain{border-top:1px solid var(--line);padding-top:.5rem;margin-top:.75rem}
        .domain-state,.revoked,.usage,.created,.last-used{color:var(--muted);font-weight:400;font-size:.9rem}
        fieldset{border:1px solid var(--line);border-radius:8px;margin:.5rem 0}
        label.check{display:flex;align-items:center;gap:.5rem;font-weight:400}label.check input{width:auto;margin:0}
        #webhook label.check code{word-break:normal;white-space:nowrap}
        """
}
